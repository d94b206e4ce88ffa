//go:build torture

package hostile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

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

func TestRewindBadInput(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.TurnWith("first turn", map[string]string{"a.txt": "a\n"}, nil)
	r.TurnWith("second turn", map[string]string{"a.txt": "a2\n"}, nil)
	first := e2etest.PointOfMessage(t, r.Points(), "first turn")
	check := func(name string, wantErr string, args ...string) {
		t.Helper()
		before := e2etest.Snapshot(t, r.Dir)
		transcript, _ := os.ReadFile(r.Transcript)
		refs := gittest.Git(t, r.Dir, "for-each-ref")
		out, errOut, code := r.Entire(args...)
		if code != 1 || out != "" || !strings.Contains(errOut, wantErr) {
			t.Errorf("%s: exit %d stdout %q stderr %q, want %q", name, code, out, errOut, wantErr)
		}
		if d := e2etest.DiffStates(before, e2etest.Snapshot(t, r.Dir)); d != "" {
			t.Errorf("%s changed files:\n%s", name, d)
		}
		if got, _ := os.ReadFile(r.Transcript); string(got) != string(transcript) {
			t.Errorf("%s changed the transcript", name)
		}
		if got := gittest.Git(t, r.Dir, "for-each-ref"); got != refs {
			t.Errorf("%s changed refs:\n%s", name, got)
		}
	}
	check("unknown id", "not found", "rewind", "--to", "0123456789abcdef")
	check("too short", "not found", "rewind", "--to", "abc")
	check("no undo point", "nothing to undo", "rewind", "--undo")
	check("flags", "Invalid usage", "rewind", "--logs-only")

	gittest.WriteFile(t, r.Dir, "staged.txt", "s\n")
	gittest.Git(t, r.Dir, "add", "staged.txt")
	check("dirty index", "staged changes", "rewind", "--to", first.ID)
	gittest.Git(t, r.Dir, "rm", "-q", "--cached", "staged.txt")
	os.Remove(filepath.Join(r.Dir, "staged.txt"))

	head := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	gittest.Git(t, r.Dir, "checkout", "-q", "--detach")
	check("detached head", "HEAD is detached", "rewind", "--to", first.ID)
	gittest.Git(t, r.Dir, "checkout", "-q", "main")

	projects := filepath.Dir(r.Transcript)
	os.Rename(projects, projects+".moved")
	before := e2etest.Snapshot(t, r.Dir)
	_, errOut, code := r.Entire("rewind", "--to", first.ID)
	if code != 1 || !strings.Contains(errOut, "agent session directory") {
		t.Errorf("missing session dir: %d %s", code, errOut)
	}
	if d := e2etest.DiffStates(before, e2etest.Snapshot(t, r.Dir)); d != "" {
		t.Errorf("missing session dir changed files:\n%s", d)
	}
	os.Rename(projects+".moved", projects)

	// A checkpoint of another base commit is not a point of HEAD.
	gittest.Git(t, r.Dir, "commit", "-q", "--allow-empty", "--no-verify", "-m", "move on")
	check("other base", "another branch or base commit", "rewind", "--to", first.ID)
	gittest.Git(t, r.Dir, "reset", "-q", "--hard", head)

	// Disabled: the disabled message, exit 0.
	r.Sh(`printf '{"enabled": false}\n' > .entire/settings.local.json`)
	if out, _, code := r.Entire("rewind", "--list"); code != 0 || !strings.Contains(out, "Entire is disabled") {
		t.Errorf("disabled: %d %q", code, out)
	}
}

func TestExplainBadInput(t *testing.T) {
	t.Parallel()
	r, id := e2etest.CommittedSession(t)
	before := gittest.Git(t, r.Dir, "for-each-ref")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--checkpoint", "ffffffffffff"}, "checkpoint not found: ffffffffffff"},
		{[]string{"--checkpoint", "zz"}, "checkpoint not found: zz"},
		{[]string{"--commit", "no-such-rev"}, `unknown commit "no-such-rev"`},
		{[]string{"--commit", "HEAD", "--checkpoint", id}, "cannot specify multiple of --session, --commit, --checkpoint"},
		{[]string{"--short", "--full", "-c", id}, "mutually exclusive"},
		{[]string{"--generate"}, "--generate requires --checkpoint"},
		{[]string{"--force", "-c", id}, "--force requires --generate"},
		{[]string{"--raw-transcript"}, "--raw-transcript requires --checkpoint"},
		{[]string{"extra"}, "Hint: use --checkpoint, --session, or --commit"},
		{[]string{"-c", id, "--generate"}, "the claude command is not installed"},
	} {
		env := r.Env
		if tc.args[len(tc.args)-1] == "--generate" {
			env = append(env[:len(env):len(env)], "PATH="+e2etest.GitOnlyPath(t))
		}
		_, errOut, code := e2etest.RunEntire(t, r.Dir, env, "", append([]string{"explain"}, tc.args...)...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("explain %v: exit %d, stderr %q (want %q)", tc.args, code, errOut, tc.want)
		}
	}
	if after := gittest.Git(t, r.Dir, "for-each-ref"); after != before {
		t.Errorf("bad input changed refs:\n%s\n%s", before, after)
	}
}
