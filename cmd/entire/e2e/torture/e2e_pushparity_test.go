//go:build torture

package torture

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A user's own push that names entire's branches goes through: the hook
// leaves to git the refs git is about to push.
func TestPushNamingEntireBranches(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	origin := t.TempDir()
	gittest.Git(t, origin, "init", "-q", "--bare")
	r.MustGit("remote", "add", "origin", origin)
	r.Hook("session-start", map[string]any{"source": "startup"})
	for i, f := range []string{"a.txt", "b.txt"} {
		r.AgentTurn("Add "+f, map[string]string{f: f + "\n"})
		r.MustGit("add", f)
		r.MustGit("commit", "-q", "-m", "Add "+f)
		out, err := r.GitIn(r.Dir, nil, "push", "origin", "main", "entire/checkpoints/v1")
		if err != nil {
			t.Fatalf("push %d: git push origin main entire/checkpoints/v1: %v\n%s", i, err, out)
		}
		assertSameRefs(t, r.Dir, origin, "main", "entire/checkpoints/v1")
	}
}

// `git push --all` and `--mirror` to the checkpoint remote go through when
// they carry nothing that must stay local; with a shadow branch they are
// refused, and the command the refusal prints pushes the rest.
func TestPushAllAndMirrorToCheckpointRemote(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	origin := t.TempDir()
	gittest.Git(t, origin, "init", "-q", "--bare")
	r.MustGit("remote", "add", "origin", origin)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.AgentTurn("Add a", map[string]string{"a.txt": "a\n"})
	r.MustGit("add", "a.txt")
	r.MustGit("commit", "-q", "-m", "Add a")
	if s := e2etest.ShadowBranches(t, r.Dir); len(s) != 0 {
		t.Fatalf("setup: shadow branches left: %v", s)
	}
	for _, args := range [][]string{{"push", "--all", "origin"}, {"push", "--mirror", "origin"}} {
		if out, err := r.GitIn(r.Dir, nil, args...); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		assertSameRefs(t, r.Dir, origin, "main", "entire/checkpoints/v1")
	}

	// A turn leaves a shadow branch; a commit moves main.
	r.AgentTurn("Add b", map[string]string{"b.txt": "b\n"})
	r.AgentTurn("Add c", map[string]string{"c.txt": "c\n"})
	r.MustGit("add", "b.txt")
	r.MustGit("commit", "-q", "-m", "Add b")
	shadow := e2etest.ShadowBranches(t, r.Dir)
	if len(shadow) == 0 {
		t.Fatal("setup: no shadow branch")
	}
	for _, flag := range []string{"--all", "--mirror"} {
		out, err := r.GitIn(r.Dir, nil, "push", flag, "origin")
		if err == nil || !strings.Contains(out, "not pushing "+shadow[0]) {
			t.Fatalf("git push %s origin with a shadow branch: err=%v\n%s", flag, err, out)
		}
		t.Logf("%s", out)
		printed := e2etest.PrintedPush(t, out)
		cmd := exec.Command("sh", "-c", printed)
		cmd.Dir = r.Dir
		cmd.Env = e2etest.GitCmd(t, r).Env
		if o, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s (printed after git push %s): %v\n%s", printed, flag, err, o)
		}
		assertSameRefs(t, r.Dir, origin, "main", "entire/checkpoints/v1")
		if refs := gittest.Git(t, origin, "for-each-ref", "--format=%(refname)"); strings.Contains(refs, strings.TrimPrefix(shadow[0], "entire/")) {
			t.Errorf("%s: the remote has the shadow branch:\n%s", printed, refs)
		}
		// The next commit moves main again for the second flag.
		r.MustGit("commit", "-q", "--allow-empty", "-m", "more")
	}
	if refs := gittest.Git(t, origin, "for-each-ref", "--format=%(refname)", "refs/remotes/"); !strings.Contains(refs, "refs/remotes/origin/entire/checkpoints/v1") {
		t.Errorf("the mirror's rest did not carry the remote-tracking refs:\n%s", refs)
	}
}

// assertSameRefs fails unless the branches have the same value in dir and
// in the remote.
func assertSameRefs(t *testing.T, dir, remote string, branches ...string) {
	t.Helper()
	for _, b := range branches {
		if got, want := gittest.Git(t, remote, "rev-parse", "refs/heads/"+b), gittest.Git(t, dir, "rev-parse", "refs/heads/"+b); got != want {
			t.Errorf("remote %s = %s, local %s", b, got, want)
		}
	}
}
