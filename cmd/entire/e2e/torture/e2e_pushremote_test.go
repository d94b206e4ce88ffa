//go:build torture

package torture

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// After `git remote set-url origin <new repository>`, origin's stale
// remote-tracking refs are not taken for the new repository's: the session
// data waits for the user's branch there (a forge would make the metadata
// branch its default), and data the new repository lacks is pushed even
// where the stale refs say it has it (a background push that was killed,
// here a push with --no-verify, is made up for by the next push).
func TestNewRemoteAfterSetURL(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	bare := func() string {
		dir := filepath.Join(t.TempDir(), "remote.git")
		gittest.Git(t, filepath.Dir(dir), "init", "-q", "--bare", "-b", "main", dir)
		return dir
	}
	first, second, third := bare(), bare(), bare()
	r.MustGit("remote", "add", "origin", first)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.PlayTurn("First", map[string]string{"a.txt": "a\n"})
	r.MustGit("add", "a.txt")
	r.MustGit("commit", "-q", "-m", "a")
	r.MustGit("push", "-q", "origin", "main")
	e2etest.AwaitBackground(t)
	r.MustGit("fetch", "-q", "origin")

	r.MustGit("remote", "set-url", "origin", second)
	r.PlayTurn("Second", map[string]string{"b.txt": "b\n"})
	r.MustGit("add", "b.txt")
	r.MustGit("commit", "-q", "-m", "b")
	out, err := r.GitIn(r.Dir, nil, "push", "origin", "main")
	if err != nil || !strings.Contains(out, "once this push has landed") {
		t.Fatalf("the first push to the new repository: %v\n%s", err, out)
	}
	e2etest.AwaitBackground(t)
	local := gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1")
	if got := gittest.Git(t, second, "rev-parse", "entire/checkpoints/v1"); got != local {
		t.Errorf("the new repository's metadata branch: %s, want %s", got, local)
	}

	r.MustGit("remote", "set-url", "origin", third)
	r.MustGit("push", "-q", "--no-verify", "origin", "main")
	r.PlayTurn("Third", map[string]string{"c.txt": "c\n"})
	r.MustGit("add", "c.txt")
	r.MustGit("commit", "-q", "-m", "c")
	if out, err := r.GitIn(r.Dir, nil, "push", "origin", "main"); err != nil {
		t.Fatalf("push: %v\n%s", err, out)
	}
	local = gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1")
	if got := gittest.Git(t, third, "rev-parse", "entire/checkpoints/v1"); got != local {
		t.Errorf("the third repository's metadata branch: %q, want %s", got, local)
	}
}

// The pre-push hook judges a push by the commits it carries: a tag or a raw
// SHA whose history reaches the metadata branch is refused on its way to a
// fork, not to the checkpoint remote; a shadow branch's history is refused
// everywhere; a tag on the user's own commits goes through.
func TestPushGuardFollowsHistory(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	origin, fork := t.TempDir(), t.TempDir()
	gittest.Git(t, origin, "init", "-q", "--bare")
	gittest.Git(t, fork, "init", "-q", "--bare")
	gittest.Git(t, r.Dir, "remote", "add", "origin", origin)
	gittest.Git(t, r.Dir, "remote", "add", "fork", fork)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.AgentTurn("Add a file", map[string]string{"a.txt": "a\n"})
	r.MustGit("add", "a.txt")
	r.MustGit("commit", "-q", "-m", "Add a")
	// A commit that merges the metadata branch's history in (by accident,
	// or a tool's doing), tagged.
	leak := gittest.Git(t, r.Dir, "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-p", "entire/checkpoints/v1", "-m", "merge everything")
	gittest.Git(t, r.Dir, "tag", "leak", leak)
	gittest.Git(t, r.Dir, "tag", "-a", "-m", "release", "v1.0", "HEAD")

	for _, args := range [][]string{{"push", "fork", "leak"}, {"push", "fork", leak + ":refs/heads/x"}} {
		out, err := r.GitIn(r.Dir, nil, args...)
		if err == nil || !strings.Contains(out, "its history holds commits of entire's branches") {
			t.Errorf("git %s: err=%v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if refs := gittest.Git(t, fork, "for-each-ref", "--format=%(refname)"); refs != "" {
		t.Fatalf("fork received refs after refused pushes:\n%s", refs)
	}
	r.MustGit("push", "-q", "fork", "v1.0")
	if refs := gittest.Git(t, fork, "for-each-ref", "--format=%(refname)"); refs != "refs/tags/v1.0" {
		t.Errorf("fork refs after pushing a user tag:\n%s", refs)
	}
	// The checkpoint remote receives session data: the tag goes there.
	if out, err := r.GitIn(r.Dir, nil, "push", "origin", "leak"); err != nil {
		t.Errorf("git push origin leak: err=%v\n%s", err, out)
	}
	// A shadow branch's history goes nowhere, not even under another name.
	r.AgentTurn("Add another", map[string]string{"b.txt": "b\n"})
	shadow := e2etest.ShadowBranches(t, r.Dir)
	if len(shadow) == 0 {
		t.Fatal("setup: no shadow branch")
	}
	tip := gittest.Git(t, r.Dir, "rev-parse", shadow[0])
	if out, err := r.GitIn(r.Dir, nil, "push", "origin", tip+":refs/heads/backup"); err == nil || !strings.Contains(out, "its history holds commits of a shadow branch") {
		t.Errorf("git push origin <shadow tip>:refs/heads/backup: err=%v\n%s", err, out)
	}
}
