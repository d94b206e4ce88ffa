package redact

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// secretForms returns byte strings that must not appear in redacted output:
// the secret as it is, JSON-escaped once and twice, and for multi-line
// secrets each long line.
func secretForms(secret string) []string {
	esc := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b[1 : len(b)-1])
	}
	forms := []string{secret, esc(secret), esc(esc(secret))}
	for _, line := range strings.Split(secret, "\n") {
		if len(line) >= 16 && !strings.HasPrefix(line, "-----") {
			forms = append(forms, line)
		}
	}
	return forms
}

func assertNoSecret(t *testing.T, where string, out []byte, p plantedSecret) {
	t.Helper()
	for _, f := range secretForms(p.secret) {
		if bytes.Contains(out, []byte(f)) {
			t.Errorf("%s: %s secret survived redaction", where, p.kind)
			return
		}
	}
}

// keptIDs are identifiers of the planted envelopes that must survive.
var keptIDs = []string{
	"1b4e28ba-2fa1-11d2-883f-", "toolu_01A09q90qw90lq917835lq", "req_011CUaRPNRqVMK3ze7ByFNd2",
	"msg_01XFDUDYJgAACzvnptvVoYEL", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7", "/home/dev/project/config.json",
	"run_shell_command-1767603660000-0a1b2c3d4e5f6",
}

func TestPlantedSecretsDoNotSurvive(t *testing.T) {
	t.Parallel()
	r := newTestRedactor(t, Options{})
	kinds := plantedSecrets(1)
	if len(kinds) < 20 {
		t.Fatalf("corpus has %d kinds, want >= 20", len(kinds))
	}
	for n, p := range kinds {
		t.Run(p.kind, func(t *testing.T) {
			t.Parallel()
			lines := plantClaude(p, n)
			positions := make([]string, 0, len(lines))
			for pos := range lines {
				positions = append(positions, pos)
			}
			slices.Sort(positions)
			for _, pos := range positions {
				in := lines[pos]
				out := r.JSONLine(in)
				assertNoSecret(t, "claude "+pos, out, p)
				if !json.Valid(out) {
					t.Errorf("claude %s: output is not valid JSON", pos)
				}
				for _, id := range keptIDs {
					if bytes.Contains(in, []byte(id)) && !bytes.Contains(out, []byte(id)) {
						t.Errorf("claude %s: identifier %q was redacted", pos, id)
					}
				}
				if got := r.JSONLine(out); !bytes.Equal(got, out) {
					t.Errorf("claude %s: redaction is not idempotent", pos)
				}
			}
			doc := plantGemini(p)
			out := r.JSONDoc(doc)
			assertNoSecret(t, "gemini", out, p)
			if !json.Valid(out) {
				t.Errorf("gemini: output is not valid JSON")
			}
			if got := r.Transcript(doc); !bytes.Equal(got, out) {
				t.Errorf("gemini: Transcript differs from JSONDoc")
			}
			for _, id := range keptIDs {
				if bytes.Contains(doc, []byte(id)) && !bytes.Contains(out, []byte(id)) {
					t.Errorf("gemini: identifier %q was redacted", id)
				}
			}
			if got := r.Text(p.text); strings.Contains(got, p.secret) {
				t.Errorf("plain text: secret survived")
			}
		})
	}
}

func TestPlantedSecretsSurviveNothingInOneFile(t *testing.T) {
	t.Parallel()
	// All kinds in one JSONL file: every line redacts as it does alone.
	r := newTestRedactor(t, Options{})
	var file, want []byte
	for n, p := range plantedSecrets(2) {
		for _, pos := range []string{"escaped-json", "nested-json", "tool-input", "tool-output", "user-prompt"} {
			line := plantClaude(p, n)[pos]
			file = append(file, line...)
			want = append(want, r.JSONLine(line)...)
		}
	}
	got := r.JSONL(file)
	if !bytes.Equal(got, want) {
		t.Fatalf("JSONL of the file differs from its lines redacted one by one")
	}
	if !bytes.Equal(r.JSONL(file), got) {
		t.Fatalf("second run gave different bytes")
	}
	for _, p := range plantedSecrets(2) {
		assertNoSecret(t, "file", got, p)
	}
	// Appending: redacting a prefix and the rest equals redacting the whole.
	cut := bytes.IndexByte(file[len(file)/2:], '\n') + len(file)/2 + 1
	split := append(r.JSONL(file[:cut]), r.JSONL(file[cut:])...)
	if !bytes.Equal(split, got) {
		t.Fatalf("redacting in two parts differs from redacting the whole")
	}
}
