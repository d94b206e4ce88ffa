// Package redacttest generates a corpus of realistic secrets of 25 kinds
// (cloud keys, forge and SaaS tokens, private keys, JWTs, database URLs,
// password assignments, high-entropy strings) at run time, so that tests
// can plant them in transcripts, hides and notes without the repository
// holding token-shaped literals.
package redacttest

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Secret is one planted secret.
type Secret struct {
	// Kind names the secret kind ("aws-access-key").
	Kind string
	// Rule is the gitleaks rule expected to find it ("" for the kinds
	// only entire's own checks find).
	Rule string
	// Value is the secret itself, which must never be stored.
	Value string
	// Text is a realistic line carrying it.
	Text string
	// Key is a JSON key it might be stored under.
	Key string
}

// Alphabets secrets are drawn from, for tests that build their own.
const (
	Alnum   = alnum
	LowerHx = lowerHx
	B64     = b64
	URLSafe = urlsafe
	Upper32 = upper32
)

// RandFrom draws n characters of alphabet from rng.
func RandFrom(rng *rand.Rand, alphabet string, n int) string { return randFrom(rng, alphabet, n) }

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

// Secrets returns the secret kinds, generated from seed: the same seed
// always gives the same values.
func Secrets(seed uint64) []Secret {
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

	return []Secret{
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

// SecretOfKind returns the secret of the given kind among Secrets(seed),
// failing the test when there is none.
func SecretOfKind(t testing.TB, seed uint64, kind string) Secret {
	t.Helper()
	for _, s := range Secrets(seed) {
		if s.Kind == kind {
			return s
		}
	}
	t.Fatalf("redacttest has no %q secret", kind)
	return Secret{}
}
