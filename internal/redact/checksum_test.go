package redact

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// Go module hashes (go.sum) and npm integrity strings (package-lock.json)
// are kept; only their exact shapes are, so a token that merely contains
// "h1:" or "sha512-" is still redacted.
func TestChecksumsKept(t *testing.T) {
	t.Parallel()
	r := newTestRedactor(t, Options{})
	sum256 := sha256.Sum256([]byte("golang.org/x/mod v0.14.0"))
	h1 := "h1:" + base64.StdEncoding.EncodeToString(sum256[:])
	sum512 := sha512.Sum512([]byte("left-pad-1.3.0.tgz"))
	integrity := "sha512-" + base64.StdEncoding.EncodeToString(sum512[:])

	kept := []string{
		"golang.org/x/mod v0.14.0 " + h1 + "\ngolang.org/x/mod v0.14.0/go.mod " + h1 + "\n",
		h1,
		`"node_modules/left-pad": {"version": "1.3.0", "integrity": "` + integrity + `"}`,
		"<script src=x.js integrity=\"" + integrity + "\"></script>",
	}
	for _, in := range kept {
		if got := r.Text(in); got != in {
			t.Errorf("Text changed a checksum:\n got %q\nwant %q", got, in)
		}
	}
	// As an agent reads them: file content inside a JSONL tool result.
	line, _ := json.Marshal(map[string]any{"type": "user", "toolUseResult": map[string]any{"stdout": kept[0] + kept[2]}})
	if got := r.JSONLine(line); string(got) != string(line) {
		t.Errorf("JSONLine changed checksums:\n got %s\nwant %s", got, line)
	}

	hash := h1[len("h1:"):]
	stray := hash[:42] + "B=" // the last character carries bits a SHA-256 does not have
	caught := map[string]string{
		"longer than a hash":      "h1:" + token(21, alnum, 40),
		"hash with more after it": h1 + token(22, alnum, 8),
		"prefix inside a word":    "auth1:" + hash,
		"not strict base64":       "h1:" + stray,
		"integrity without pad":   "sha512-" + token(23, alnum, 88),
		"integrity of wrong size": "sha512-" + base64.StdEncoding.EncodeToString(append(sum512[:], sum256[:]...)),
	}
	for name, in := range caught {
		if got := r.Text("x " + in + " y"); !strings.Contains(got, Replacement) {
			t.Errorf("%s: %q was not redacted", name, in)
		}
	}
}
