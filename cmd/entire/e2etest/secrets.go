package e2etest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/redact/redacttest"
	"github.com/entirecli/entire/internal/settings"
)

// PlantSecrets plants every secret in every place of a Claude Code turn
// left open: the prompt, tool inputs and outputs (nested JSON and JSON
// escaped inside strings), a tool output large enough to become a hide,
// and a note.
func (r *SessionRepo) PlantSecrets(secrets []redacttest.Secret) {
	t := r.T
	t.Helper()
	r.Hook("user-prompt-submit", map[string]any{"prompt": "use " + secrets[0].Value})
	for i, s := range secrets {
		nested, _ := json.Marshal(map[string]any{"config": map[string]any{s.Key: s.Value}})
		r.AppendTranscript(
			map[string]any{"type": "user", "uuid": fmt.Sprintf("p%d", i), "message": map[string]any{"role": "user", "content": "please use " + s.Text}},
			map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", i), "message": map[string]any{"id": fmt.Sprintf("msg_%d", i), "role": "assistant",
				"content": []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", i), "name": "Bash", "input": map[string]any{"command": s.Text, "env": map[string]any{s.Key: s.Value}}}}}},
			map[string]any{"type": "user", "uuid": fmt.Sprintf("r%d", i), "message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("toolu_%d", i), "content": "output: " + s.Text + "\nescaped: " + string(nested)}}},
				"toolUseResult": map[string]any{"stdout": s.Text, "nested": map[string]any{"deeper": map[string]any{s.Key: s.Value}}}},
		)
	}
	// A large tool output with secrets becomes a hide.
	var big strings.Builder
	for big.Len() < 60000 {
		for _, s := range secrets {
			big.WriteString(s.Text + "\n")
		}
	}
	r.Hook("post-tool", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_big",
		"tool_input": map[string]any{"command": "cat .env"}, "tool_response": map[string]any{"stdout": big.String(), "stderr": "", "interrupted": false}})
	// A note with secrets.
	var noteText strings.Builder
	for _, s := range secrets[:8] {
		noteText.WriteString(s.Text + "; ")
	}
	if _, errOut, code := r.Entire("note", "save", "credentials", noteText.String()); code != 0 {
		t.Fatalf("note save: %s", errOut)
	}
}

// EachObject calls fn with every object reachable from the rev-list
// arguments (every object of the repository, reachable or not, when there
// are none) and its content.
func EachObject(t *testing.T, dir string, revList []string, fn func(typ, hash string, body []byte)) {
	t.Helper()
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch")
	if len(revList) > 0 {
		cmd = exec.Command("git", "cat-file", "--batch")
		cmd.Stdin = strings.NewReader(gittest.Git(t, dir, append([]string{"rev-list", "--objects", "--no-object-names"}, revList...)...))
	}
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(bytes.NewReader(out))
	for {
		header, err := rd.ReadString('\n')
		if err != nil {
			break
		}
		var hash, typ string
		var size int
		fmt.Sscanf(header, "%s %s %d", &hash, &typ, &size)
		body := make([]byte, size+1)
		if _, err := io.ReadFull(rd, body); err != nil {
			t.Fatal(err)
		}
		fn(typ, hash, body[:size])
	}
}

// ObjectsHolding returns the objects reachable from refs whose content
// holds s, as "<type> <hash>" lines.
func ObjectsHolding(t *testing.T, dir, s string, refs ...string) []string {
	t.Helper()
	var found []string
	EachObject(t, dir, refs, func(typ, hash string, body []byte) {
		if bytes.Contains(body, []byte(s)) {
			found = append(found, typ+" "+hash)
		}
	})
	return found
}

// PunctuatedKeys are keys of kinds whose gitleaks rule ended with a
// boundary that only a quote, whitespace or ';' satisfied (issue 30): a
// Stripe key and keys that look like hex, which the entropy check never
// catches.
func PunctuatedKeys(rng *rand.Rand) []string {
	pick := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	const hex = "0123456789abcdef"
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	return []string{
		"sk_" + "live_" + pick(alnum, 24),
		"dapi" + pick(hex, 32),
		"dop_" + "v1_" + pick(hex, 64),
		"pul-" + pick(hex, 40),
	}
}

// AllObjectsHolding returns the objects of a repository (reachable or not)
// whose content contains needle.
func AllObjectsHolding(t *testing.T, dir, needle string) []string {
	t.Helper()
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var hits []string
	rd := bufio.NewReader(bytes.NewReader(out))
	for {
		header, err := rd.ReadString('\n')
		if err != nil {
			break
		}
		var hash, typ string
		var size int
		fmt.Sscanf(header, "%s %s %d", &hash, &typ, &size)
		body := make([]byte, size+1)
		if _, err := io.ReadFull(rd, body); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(body, []byte(needle)) {
			hits = append(hits, typ+" "+hash)
		}
	}
	return hits
}

// AddRedactionPattern adds a redaction pattern to the project settings, after
// those it already has.
func AddRedactionPattern(t *testing.T, dir, pattern string) {
	t.Helper()
	s, err := settings.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	red, _ := s.StrategyOptions[settings.OptRedaction].(map[string]any)
	if red == nil {
		red = map[string]any{}
	}
	patterns, _ := red["patterns"].([]any)
	red["patterns"] = append(patterns, pattern)
	s.SetOption(settings.OptRedaction, red)
	if err := settings.Save(settings.ProjectPath(dir), s); err != nil {
		t.Fatal(err)
	}
}
