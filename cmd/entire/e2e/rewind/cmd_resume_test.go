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

func TestResumeBadInput(t *testing.T) {
	t.Parallel()
	r, _ := e2etest.CommittedSession(t)
	gittest.Git(t, r.Dir, "checkout", "-q", "main")
	projects := t.TempDir()
	target := filepath.Join(projects, "sess-1.jsonl")
	check := func(name string, env []string, args []string, want string) {
		t.Helper()
		before := gittest.Git(t, r.Dir, "for-each-ref") + gittest.Git(t, r.Dir, "status", "--porcelain")
		_, errOut, code := e2etest.RunEntire(t, r.Dir, env, "", append([]string{"resume"}, args...)...)
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stderr %q (want %q)", name, code, errOut, want)
		}
		after := gittest.Git(t, r.Dir, "for-each-ref") + gittest.Git(t, r.Dir, "status", "--porcelain")
		if b := gittest.Git(t, r.Dir, "branch", "--show-current"); b != "main" || after != before {
			t.Errorf("%s: changed the repository (branch %s)", name, b)
		}
	}
	env := []string{"ENTIRE_TEST_CLAUDE_PROJECT_DIR=" + projects}
	check("unknown branch", env, []string{"no-such-branch"}, "branch 'no-such-branch' not found locally or on origin")
	check("bad name", env, []string{"a..b"}, `invalid branch name "a..b"`)
	check("no args", env, nil, "exactly one argument")
	check("missing agent dir", []string{"ENTIRE_TEST_CLAUDE_PROJECT_DIR=" + filepath.Join(projects, "gone", "deeper")},
		[]string{"feature"}, "Claude Code session directory")
	if _, err := os.Stat(filepath.Join(projects, "gone")); err == nil {
		t.Error("missing agent dir was created")
	}

	// A local transcript with newer entries is kept without --force.
	newer := `{"type":"user","uuid":"x","timestamp":"2099-01-01T00:00:00Z","message":{"role":"user","content":"later"}}` + "\n"
	if err := os.WriteFile(target, []byte(newer), 0o600); err != nil {
		t.Fatal(err)
	}
	check("newer local", env, []string{"feature"}, "use --force to overwrite")
	if b, _ := os.ReadFile(target); string(b) != newer {
		t.Error("newer local transcript overwritten without --force")
	}
	// A newer commit without checkpoint needs confirmation.
	gittest.Git(t, r.Dir, "checkout", "-q", "feature")
	gittest.Git(t, r.Dir, "commit", "-q", "--allow-empty", "--no-verify", "-m", "later work")
	gittest.Git(t, r.Dir, "checkout", "-q", "main")
	check("older checkpoint", env, []string{"feature"}, "not resuming from an older checkpoint without confirmation (use --force)")
	// Uncommitted changes stop the checkout.
	gittest.WriteFile(t, r.Dir, "README.md", "changed\n")
	check("dirty", env, []string{"feature", "--force"}, "you have uncommitted changes")
	gittest.Git(t, r.Dir, "checkout", "--", "README.md")

	if _, errOut, code := e2etest.RunEntire(t, r.Dir, env, "", "resume", "feature", "--force"); code != 0 {
		t.Fatalf("resume --force: %d %s", code, errOut)
	}
	if b, _ := os.ReadFile(target); string(b) == newer {
		t.Error("--force did not overwrite")
	}
	// No checkpoint on main: informational, exit 0.
	gittest.Git(t, r.Dir, "checkout", "-q", "main")
	if _, errOut, code := e2etest.RunEntire(t, r.Dir, env, "", "resume", "main"); code != 0 || !strings.Contains(errOut, "No Entire checkpoint found on branch 'main'") {
		t.Errorf("resume main: %d %q", code, errOut)
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
