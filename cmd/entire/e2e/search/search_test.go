package search

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/redact/redacttest"
)

// searchJSON runs entire search --json and returns its hits.
func searchJSON(t *testing.T, r *e2etest.SessionRepo, args ...string) []map[string]any {
	t.Helper()
	out := r.MustEntire(append([]string{"search", "--json"}, args...)...)
	var hits []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var h map[string]any
		if err := json.Unmarshal([]byte(l), &h); err != nil {
			t.Fatalf("search --json line %q: %v", l, err)
		}
		hits = append(hits, h)
	}
	return hits
}

// TestSearchFindsTurnsOfEveryCheckpoint indexes two commits' checkpoints
// (one before the index exists, one after), finds turns by their prompt
// and their answer with filters, and leaves no planted secret in the
// index's files.
func TestSearchFindsTurnsOfEveryCheckpoint(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	secrets := redacttest.Secrets(7)[:6]
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.PlantSecrets(secrets)
	r.EndTurn(r.Dir, "Planted.")
	r.PlayTurn("make the tokenizer handle unicode identifiers", map[string]string{"tok.go": "package tok\n"})
	r.MustGit("add", "-A")
	r.MustGit("commit", "-q", "-m", "tokenizer")
	first := e2etest.CheckpointAt(t, r.Dir, "HEAD")

	hits := searchJSON(t, r, "tokenizer", "unicode")
	if len(hits) == 0 || hits[0]["checkpoint_id"] != first || hits[0]["session_id"] != r.SessionID || hits[0]["commit"] != strings.TrimSpace(r.MustGit("rev-parse", "HEAD")) {
		t.Fatalf("search tokenizer unicode: %v (want checkpoint %s)", hits, first)
	}
	if s, _ := hits[0]["snippet"].(string); !strings.Contains(strings.ToLower(s), "tokenizer") {
		t.Errorf("snippet %q", s)
	}

	// A second checkpoint arrives: the next search indexes it alone.
	b := r.WithSession("sess-2")
	b.PlayTurn("speed up the parser cache", map[string]string{"cache.go": "package cache\n"})
	r.MustGit("add", "-A")
	r.MustGit("commit", "-q", "-m", "cache")
	second := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	// The post-commit indexed it in the background.
	e2etest.AwaitBackground(t)
	if b, err := os.ReadFile(filepath.Join(r.Dir, ".git", "entire-search", "indexed")); err != nil || !strings.Contains(string(b), second) {
		t.Errorf("the commit's checkpoint was not indexed in the background: %q %v", b, err)
	}
	hits = searchJSON(t, r, "parser", "cache")
	if len(hits) == 0 || hits[0]["checkpoint_id"] != second || hits[0]["session_id"] != "sess-2" {
		t.Fatalf("search parser cache: %v (want checkpoint %s)", hits, second)
	}
	// The answer is searched too.
	if hits := searchJSON(t, r, "Done with speed up"); len(hits) == 0 || hits[0]["field"] != "answer" && hits[0]["field"] != "prompt" {
		t.Errorf("answer search: %v", hits)
	}
	// Filters.
	if hits := searchJSON(t, r, "--agent", "gemini", "tokenizer"); len(hits) != 0 {
		t.Errorf("--agent gemini found %v", hits)
	}
	if hits := searchJSON(t, r, "--agent", "claude-code", "--branch", "main", "--since", "24h", "tokenizer"); len(hits) == 0 {
		t.Errorf("--agent claude-code --branch main --since 24h found nothing")
	}
	if hits := searchJSON(t, r, "--branch", "elsewhere", "tokenizer"); len(hits) != 0 {
		t.Errorf("--branch elsewhere found %v", hits)
	}
	out := r.MustEntire("search", "tokenizer")
	if !strings.Contains(out, first) || !strings.Contains(out, "turn") {
		t.Errorf("text output:\n%s", out)
	}
	indexed, err := os.ReadFile(filepath.Join(r.Dir, ".git", "entire-search", "indexed"))
	if err != nil || strings.Count(string(indexed), "\n") != 2 {
		t.Errorf("indexed list %q %v", indexed, err)
	}

	// No secret in any file of the index.
	dir := filepath.Join(r.Dir, ".git", "entire-search")
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		for _, s := range secrets {
			if strings.Contains(string(b), s.Value) {
				t.Errorf("%s holds secret %s", p, s.Key)
			}
		}
		return nil
	})

	// Bad input: one line and exit 2, or cobra's usage.
	for _, bad := range [][]string{{"search"}, {"search", "--since", "yesterday", "x"}, {"search", "--limit", "0", "x"}} {
		if _, errOut, code := r.Entire(bad...); code == 0 || strings.Contains(errOut, "goroutine") {
			t.Errorf("%v: exit %d, %q", bad, code, errOut)
		}
	}
	gittest.WriteFile(t, r.Dir, "x.txt", "x\n")
}
