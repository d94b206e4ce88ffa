package rewind

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A rewind and its undo leave a Gemini session's accounting as it was:
// the commit's checkpoint has the same tokens, API calls, prompts and files
// as without them, for both transcript containers (JSONL, whose records are
// upserted by id, and the older single JSON document).
func TestE2EGeminiRewindUndoCountsOnce(t *testing.T) {
	t.Parallel()
	for _, jsonl := range []bool{true, false} {
		name := "single JSON"
		if jsonl {
			name = "JSONL"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := e2etest.NewSessionRepo(t)
			g := e2etest.NewGeminiSession(r, "5e6f7a8b-gemini-rewind", jsonl)
			g.PlayTurn("turn one: write a", map[string]string{"a.go": "package a\n"})
			g.PlayTurn("turn two: write b", map[string]string{"b.go": "package b\n"})
			before, _ := os.ReadFile(g.Path)

			first := e2etest.PointOfTurn(t, r.Points(), 1)
			if _, errOut, code := r.Entire("rewind", "--to", first.ID); code != 0 {
				t.Fatalf("rewind: %s", errOut)
			}
			if _, err := os.Stat(r.Dir + "/b.go"); err == nil {
				t.Fatal("rewind to turn one kept b.go")
			}
			if _, errOut, code := r.Entire("rewind", "--undo"); code != 0 {
				t.Fatalf("rewind --undo: %s", errOut)
			}
			after, _ := os.ReadFile(g.Path)
			if string(after) != string(before) {
				t.Fatalf("undo did not restore the transcript byte for byte")
			}
			// The session goes on after the undo.
			g.PlayTurn("turn three: write c", map[string]string{"c.go": "package c\n"})

			r.MustGit("add", "a.go", "b.go", "c.go")
			r.MustGit("commit", "-q", "-m", "Add a, b and c")
			id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
			if id == "" {
				t.Fatal("commit not linked")
			}
			m := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id, "0/metadata.json"))
			tu, _ := m["token_usage"].(map[string]any)
			// Three turns of 100 input, 20 output, 10 cached, one call each.
			if tu["input_tokens"] != float64(300) || tu["output_tokens"] != float64(60) || tu["cache_read_tokens"] != float64(30) || tu["api_call_count"] != float64(3) {
				t.Errorf("token_usage after rewind and undo: %v", tu)
			}
			if p := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, "0/prompt.txt")); p != "turn one: write a\n\n---\n\nturn two: write b\n\n---\n\nturn three: write c" {
				t.Errorf("prompt.txt %q", p)
			}
			if ft := e2etest.AnyStrings(m["files_touched"]); !slices.Equal(ft, []string{"a.go", "b.go", "c.go"}) {
				t.Errorf("files_touched %v", ft)
			}
			out, errOut, code := r.Entire("explain", "--commit", "HEAD")
			if code != 0 {
				t.Fatalf("explain: %s", errOut)
			}
			if n := strings.Count(out, "[User] turn two: write b"); n != 1 || !strings.Contains(out, "Prompts: (3)") {
				t.Errorf("explain shows turn two's prompt %d times:\n%s", n, out)
			}
		})
	}
}
