package strategy

import (
	"path/filepath"
	"testing"
)

// transcript_path is stored relative to $HOME, and not at all for a path
// outside it (SPEC 3.7).
func TestHomeRelative(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for path, want := range map[string]string{
		filepath.Join(home, ".claude", "projects", "p", "s.jsonl"): ".claude/projects/p/s.jsonl",
		filepath.Join(home, "..x", "s.jsonl"):                      "..x/s.jsonl",
		filepath.Join(filepath.Dir(home), "other", "s.jsonl"):      "",
		"/elsewhere/s.jsonl":                                       "",
		home:                                                       "",
		"relative/s.jsonl":                                         "",
		"":                                                         "",
	} {
		if got := homeRelative(path); got != want {
			t.Errorf("homeRelative(%q) = %q, want %q", path, got, want)
		}
	}
}
