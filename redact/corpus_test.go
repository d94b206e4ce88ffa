package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// The planted corpus is generated at test time from a fixed seed, so the
// repository holds no token-shaped strings (forges reject pushes that do)
// and every run plants the same bytes.

// plantedSecret is one secret kind: the secret itself, a line of text that
// uses it, and the key name under which a config object would hold it.
type plantedSecret struct {
	kind   string // short name used in test output
	rule   string // gitleaks rule expected to find it ("" = only our extra detectors)
	secret string
	text   string
	key    string
}

const (
	alnum   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upper32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	lowerHx = "0123456789abcdef"
	letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	b64     = alnum + "+/"
	urlsafe = alnum + "_-"
	digits  = "0123456789"
)

func randFrom(rng *rand.Rand, alphabet string, n int) string {
	var b strings.Builder
	for range n {
		b.WriteByte(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

// plantedSecrets returns the secret kinds, generated from seed.
func plantedSecrets(seed uint64) []plantedSecret {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	r := func(alphabet string, n int) string { return randFrom(rng, alphabet, n) }

	awsKey := "AKIA" + r(upper32, 16)
	awsSecret := r(b64, 40)
	ghp := "ghp_" + r(alnum, 36)
	ghFine := "github_pat_" + r(alnum+"_", 82)
	glpat := "glpat-" + r(urlsafe, 20)
	slack := "xoxb-" + r(digits, 12) + "-" + r(digits, 13) + "-" + r(alnum, 24)
	stripe := "sk_" + "live_" + r(alnum, 32)
	openai := "sk-proj-" + r(urlsafe, 74) + "T3Blbk" + "FJ" + r(urlsafe, 74)
	anthropic := "sk-ant-" + "api03-" + r(urlsafe, 93) + "AA"
	gcp := "AIza" + r(urlsafe, 35)
	sendgrid := "SG." + r(urlsafe, 22) + "." + r(urlsafe, 43)
	npm := "npm_" + r(alnum, 36)
	shopify := "shpat_" + r(lowerHx, 32)
	doToken := "dop_v1_" + r(lowerHx, 64)
	hf := "hf_" + r(letters, 34)
	webhook := "https://hooks.slack.com/services/T" + r(upper32, 8) + "/B" + r(upper32, 8) + "/" + r(alnum, 24)
	pypi := "pypi-AgEIcHlwaS5vcmc" + r(urlsafe, 60)
	twilio := "SK" + r(lowerHx, 32)

	var key strings.Builder
	key.WriteString("-----BEGIN RSA PRIVATE KEY-----\n")
	for range 8 {
		key.WriteString(r(b64, 64) + "\n")
	}
	key.WriteString(r(b64, 20) + "==\n-----END RSA PRIVATE KEY-----")
	pem := key.String()

	hdr := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	payload := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"sub":"%s","name":"%s","iat":%d}`, r(digits, 10), r(letters, 12), 1700000000+rng.IntN(1e6))))
	jwt := hdr + "." + payload + "." + r(urlsafe, 43)

	dbPass := r(alnum, 14)
	pwd := r(alnum+"!#%", 18)
	apiKey := r(alnum, 32)
	entropyTok := r(alnum, 40)
	entropyB64 := r(b64, 44)

	return []plantedSecret{
		{"aws-access-key", "aws-access-token", awsKey, "export AWS_ACCESS_KEY_ID=" + awsKey, "aws_access_key_id"},
		{"aws-secret-key", "generic-api-key", awsSecret, "aws_secret_access_key = " + awsSecret, "aws_secret_access_key"},
		{"github-classic", "github-pat", ghp, "git push https://x:" + ghp + "@github.com/acme/app.git && echo done", "github_token"},
		{"github-fine-grained", "github-fine-grained-pat", ghFine, "GH_TOKEN=" + ghFine + " gh pr list", "gh_token"},
		{"gitlab", "gitlab-pat", glpat, "curl --header \"PRIVATE-TOKEN: " + glpat + "\" https://gitlab.example.com/api/v4/projects", "gitlab_token"},
		{"slack", "slack-bot-token", slack, "SLACK_BOT_TOKEN=" + slack, "slack_token"},
		{"stripe", "stripe-access-token", stripe, "stripe.api_key = '" + stripe + "'", "stripe_key"},
		{"openai", "openai-api-key", openai, "OPENAI_API_KEY=" + openai, "openai_api_key"},
		{"anthropic", "anthropic-api-key", anthropic, "ANTHROPIC_API_KEY=" + anthropic, "anthropic_api_key"},
		{"google-api", "gcp-api-key", gcp, "const mapsKey = \"" + gcp + "\";", "google_api_key"},
		{"private-key", "private-key", pem, "cat ~/.ssh/id_rsa\n" + pem + "\n", "private_key"},
		{"jwt", "jwt", jwt, "Authorization: Bearer " + jwt, "id_token_value"},
		{"database-url", "", dbPass, "DATABASE_URL=postgres://app:" + dbPass + "@db.internal:5432/app?sslmode=disable", "database_url"},
		{"password-assignment", "generic-api-key", pwd, "password=" + pwd, "password"},
		{"api-key-assignment", "generic-api-key", apiKey, "api_key: \"" + apiKey + "\"", "api_key"},
		{"sendgrid", "sendgrid-api-token", sendgrid, "SENDGRID_API_KEY=" + sendgrid, "sendgrid_api_key"},
		{"npm", "npm-access-token", npm, "//registry.npmjs.org/:_authToken=" + npm, "npm_token"},
		{"shopify", "shopify-access-token", shopify, "X-Shopify-Access-Token: " + shopify, "shopify_token"},
		{"digitalocean", "digitalocean-pat", doToken, "doctl auth init -t " + doToken, "do_token"},
		{"huggingface", "huggingface-access-token", hf, "huggingface-cli login --token " + hf, "hf_token"},
		{"slack-webhook", "slack-webhook-url", webhook, "curl -X POST " + webhook + " -d '{}'", "webhook_url"},
		{"pypi", "pypi-upload-token", pypi, "twine upload -p " + pypi + " dist/*", "pypi_token"},
		{"twilio", "twilio-api-key", twilio, "TWILIO_API_KEY=" + twilio, "twilio_key"},
		{"high-entropy-base62", "", entropyTok, "the value is " + entropyTok + " (from the vault)", "value"},
		{"high-entropy-base64", "", entropyB64, "blob " + entropyB64 + " end", "blob"},
	}
}

// claudeLine marshals a Claude Code JSONL entry deterministically.
func claudeLine(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// plantClaude returns Claude Code JSONL lines that hold p in every position
// the tests cover, keyed by position name.
func plantClaude(p plantedSecret, n int) map[string][]byte {
	uuid := fmt.Sprintf("1b4e28ba-2fa1-11d2-883f-%012d", n)
	toolID := fmt.Sprintf("toolu_01A09q90qw90lq917835lq%02d", n%100)
	envelope := func(typ string, msg any, extra map[string]any) []byte {
		m := map[string]any{
			"parentUuid": nil, "isSidechain": false, "userType": "external",
			"cwd": "/home/dev/project", "sessionId": "5c0375b4-57a5-4f26-b12d-d022ee4e51b7",
			"version": "2.1.42", "gitBranch": "main", "type": typ, "uuid": uuid,
			"timestamp": "2026-02-01T10:00:00.000Z", "message": msg,
		}
		for k, v := range extra {
			m[k] = v
		}
		return claudeLine(m)
	}
	nested := map[string]any{"service": p.kind, "settings": map[string]any{p.key: p.secret, "list": []any{"a", p.text}}}
	nestedJSON, _ := json.MarshalIndent(nested, "", "  ")
	return map[string][]byte{
		"user-prompt": envelope("user", map[string]any{"role": "user", "content": "Please deploy. " + p.text + "\nThanks."}, nil),
		"tool-input": envelope("assistant", map[string]any{
			"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant", "model": "claude-opus-4-6",
			"content": []any{map[string]any{"type": "tool_use", "id": toolID, "name": "Bash",
				"input": map[string]any{"command": p.text, "description": "run it"}}},
		}, map[string]any{"requestId": "req_011CUaRPNRqVMK3ze7ByFNd2"}),
		"tool-output": envelope("user", map[string]any{"role": "user", "content": []any{map[string]any{
			"tool_use_id": toolID, "type": "tool_result", "content": "output:\n" + p.text + "\nexit 0", "is_error": false,
		}}}, map[string]any{"toolUseResult": map[string]any{"stdout": p.text, "stderr": "", "interrupted": false}}),
		"nested-json": envelope("assistant", map[string]any{
			"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": toolID, "name": "Write",
				"input": map[string]any{"file_path": "/home/dev/project/config.json", "config": nested}}},
		}, nil),
		"escaped-json": envelope("user", map[string]any{"role": "user", "content": []any{map[string]any{
			"tool_use_id": toolID, "type": "tool_result", "content": string(nestedJSON),
		}}}, nil),
	}
}

// plantGemini returns a pretty-printed Gemini CLI session holding p in a
// user message, tool arguments, a tool result and a nested JSON string.
func plantGemini(p plantedSecret) []byte {
	nested, _ := json.Marshal(map[string]any{"config": map[string]any{p.key: p.secret}, "note": p.text})
	doc := map[string]any{
		"sessionId": "f7633853-1111-4222-8333-944455556666", "projectHash": strings.Repeat("ab12", 16),
		"startTime": "2026-01-05T09:00:00.000Z", "lastUpdated": "2026-01-05T09:05:00.000Z",
		"messages": []any{
			map[string]any{"id": "m1", "timestamp": "2026-01-05T09:00:00.000Z", "type": "user", "content": "Use this: " + p.text},
			map[string]any{"id": "m2", "timestamp": "2026-01-05T09:01:00.000Z", "type": "gemini", "content": "Running it.",
				"toolCalls": []any{map[string]any{
					"id": "run_shell_command-1767603660000-0a1b2c3d4e5f6", "name": "run_shell_command",
					"args": map[string]any{"command": p.text, "env": map[string]any{p.key: p.secret}},
					"result": []any{map[string]any{"functionResponse": map[string]any{
						"id": "run_shell_command-1767603660000-0a1b2c3d4e5f6", "name": "run_shell_command",
						"response": map[string]any{"output": "Command: x\nStdout: " + p.text + "\nExit Code: 0", "raw": string(nested)},
					}}},
					"status": "success",
				}},
			},
		},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err)
	}
	return b
}
