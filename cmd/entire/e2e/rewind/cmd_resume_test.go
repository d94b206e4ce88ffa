package rewind

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
)

func TestResumeInSecondClone(t *testing.T) {
	t.Parallel()
	r, _ := e2etest.CommittedSession(t)
	remote := e2etest.Publish(t, r)
	live, _ := os.ReadFile(r.Transcript)
	for _, tc := range []struct {
		name      string
		fetched   []string
		emptyMeta bool // a local metadata branch without the checkpoint
	}{
		{"metadata fetched", []string{"feature", "entire/checkpoints/v1"}, false},
		{"metadata fetched by resume", []string{"feature"}, false},
		{"branch fetched by resume", nil, false},
		{"stale local metadata branch", []string{"feature", "entire/checkpoints/v1"}, true},
		{"empty local metadata branch", []string{"feature"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clone := e2etest.SecondClone(t, remote, tc.fetched...)
			if tc.emptyMeta {
				root := gittest.Git(t, clone, "commit-tree", "4b825dc642cb6eb9a060e54bf8d69288fbee4904", "-m", "Initialize metadata branch")
				gittest.Git(t, clone, "update-ref", "refs/heads/entire/checkpoints/v1", root)
			}
			projects := t.TempDir()
			env := []string{"ENTIRE_TEST_CLAUDE_PROJECT_DIR=" + projects}
			_, errOut, code := e2etest.RunEntire(t, clone, env, "", "resume", "feature")
			if code != 0 {
				t.Fatalf("resume: exit %d\n%s", code, errOut)
			}
			if b := gittest.Git(t, clone, "branch", "--show-current"); b != "feature" {
				t.Errorf("on branch %q", b)
			}
			got, err := os.ReadFile(filepath.Join(projects, "sess-1.jsonl"))
			if err != nil || string(got) != string(live) {
				t.Errorf("restored transcript differs (%v)", err)
			}
			if !strings.Contains(errOut, "To continue this session, run:\n  claude -r sess-1  # Add a farewell too\n") {
				t.Errorf("stderr:\n%s", errOut)
			}
			if out, _, code := e2etest.RunEntire(t, clone, env, "", "explain", "--commit", "HEAD", "--no-pager"); code != 0 || !strings.Contains(out, "Session: sess-1 (Claude Code)") {
				t.Errorf("explain in the clone: %d\n%s", code, out)
			}
			gittest.Fsck(t, clone)
		})
	}
}

func TestExplainAndResumeWhenDisabled(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	s := settings.Defaults()
	s.Enabled = false
	if err := settings.Save(settings.ProjectPath(dir), s); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"explain"}, {"explain", "--commit", "HEAD"}, {"resume", "main"}} {
		out, errOut, code := e2etest.RunEntire(t, dir, nil, "", args...)
		if code != 0 || out != "Entire is disabled. Run `entire enable` to re-enable."+"\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// In a fresh `git clone`, origin/HEAD names origin/main: resuming main
// itself walks its whole history (it has no commits of its own beyond the
// default branch), and finds the checkpoint on it.
func TestResumeDefaultBranchInFreshClone(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Write the greeting", map[string]string{"hello.txt": "hello\n"})
	r.MustGit("add", "hello.txt")
	r.MustGit("commit", "-q", "-m", "Greeting")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	bare := filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, r.Dir, "init", "-q", "--bare", "-b", "main", bare)
	gittest.Git(t, r.Dir, "push", "-q", "--no-verify", bare, "main", "entire/checkpoints/v1")
	clone := filepath.Join(t.TempDir(), "clone")
	gittest.Git(t, filepath.Dir(clone), "clone", "-q", bare, clone)
	projects := t.TempDir()
	_, errOut, code := e2etest.RunEntire(t, clone, []string{"ENTIRE_TEST_CLAUDE_PROJECT_DIR=" + projects}, "", "resume", "main")
	if code != 0 || !strings.Contains(errOut, "claude -r sess-1") {
		t.Fatalf("resume main in a fresh clone (checkpoint %s): exit %d\n%s", id, code, errOut)
	}
	if _, err := os.Stat(filepath.Join(projects, "sess-1.jsonl")); err != nil {
		t.Errorf("transcript not restored: %v", err)
	}
}
