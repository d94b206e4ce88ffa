package redact

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/entirecli/entire/internal/redact/redacttest"
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

// Alphabets of the shared generator, for the tests that draw their own.
const (
	alnum   = redacttest.Alnum
	lowerHx = redacttest.LowerHx
	b64     = redacttest.B64
	urlsafe = redacttest.URLSafe
	upper32 = redacttest.Upper32
)

func randFrom(rng *rand.Rand, alphabet string, n int) string {
	return redacttest.RandFrom(rng, alphabet, n)
}

// plantedSecrets returns the secret kinds, generated from seed (by the
// shared generator other packages' tests use too).
func plantedSecrets(seed uint64) []plantedSecret {
	var out []plantedSecret
	for _, x := range redacttest.Secrets(seed) {
		out = append(out, plantedSecret{kind: x.Kind, rule: x.Rule, secret: x.Value, text: x.Text, key: x.Key})
	}
	return out
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
