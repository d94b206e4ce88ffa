package geminicli

import (
	"os"
	"path/filepath"
	"testing"
)

// The chats folder of a project is where Gemini CLI 0.61 keeps it: the
// slug projects.json registers, when the slug's .project_root does not say
// it belongs to another project; else a slug whose marker names the
// project; else the older hash folder, which the client moves into a new
// slug folder on its first start there.
func TestSessionDirFollowsGeminiProjectRegistry(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	root := filepath.Join(t.TempDir(), "repo")
	a := New()
	a.Getenv = func(string) string { return "" }
	a.UserHomeDir = func() (string, error) { return home, nil }
	gem := filepath.Join(home, ".gemini")
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(gem, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := func(slug string) {
		t.Helper()
		got, err := a.GetSessionDir(root)
		if err != nil || got != filepath.Join(gem, "tmp", slug, "chats") {
			t.Errorf("GetSessionDir = %q, %v; want tmp/%s/chats", got, err, slug)
		}
	}
	want(ProjectHash(root)) // a project Gemini CLI has not seen
	write("tmp/repo-1/.project_root", root+"\n")
	want("repo-1") // found by its marker
	write("projects.json", `{"projects":{"`+root+`":"repo"}}`)
	want("repo") // registered, no marker yet
	write("tmp/repo/.project_root", "/somewhere/else")
	want("repo-1") // the registered slug belongs to another project
	write("projects.json", `{"projects":{"`+root+`":"../../etc"}}`)
	want("repo-1") // a slug that is not a folder name is not followed
}
