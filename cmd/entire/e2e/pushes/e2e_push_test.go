package pushes

import (
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// Session data goes only to the checkpoint remote: a push to another remote
// (even `git push --all`) never carries the entire branches, and shadow
// branches are never pushed.
func TestPushPrivacyEndToEnd(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	origin, fork := t.TempDir(), t.TempDir()
	gittest.Git(t, origin, "init", "-q", "--bare")
	gittest.Git(t, fork, "init", "-q", "--bare")
	gittest.Git(t, r.Dir, "remote", "add", "origin", origin)
	gittest.Git(t, r.Dir, "remote", "add", "fork", fork)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.AgentTurn("Add a file", map[string]string{"a.txt": "a\n"})
	gittest.Git(t, r.Dir, "add", "a.txt")
	if out, err := e2etest.GitCmd(t, r, "commit", "-q", "-m", "Add a").CombinedOutput(); err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}
	r.AgentTurn("Add another", map[string]string{"b.txt": "b\n"}) // leaves a shadow branch

	out, err := r.GitIn(r.Dir, nil, "push", "--all", "fork")
	if err == nil || !strings.Contains(string(out), "not pushing entire/") {
		t.Fatalf("git push --all fork: err=%v\n%s", err, out)
	}
	if refs := gittest.Git(t, fork, "for-each-ref", "--format=%(refname)"); refs != "" {
		t.Fatalf("fork received refs after a refused push:\n%s", refs)
	}
	if out, err := r.GitIn(r.Dir, nil, "push", "-q", "fork", "main"); err != nil {
		t.Fatalf("git push fork main: %v\n%s", err, out)
	}
	if refs := gittest.Git(t, fork, "for-each-ref", "--format=%(refname)"); refs != "refs/heads/main" {
		t.Fatalf("fork refs:\n%s", refs)
	}
	if out, err := r.GitIn(r.Dir, nil, "push", "-q", "origin", "main"); err != nil {
		t.Fatalf("git push origin main: %v\n%s", err, out)
	}
	e2etest.AwaitBackground(t) // origin had no branch: main went first
	refs := gittest.Git(t, origin, "for-each-ref", "--format=%(refname)")
	if !strings.Contains(refs, "refs/heads/entire/checkpoints/v1") || strings.Contains(refs, "-e3b0c4") {
		t.Fatalf("origin refs:\n%s", refs)
	}
	local := gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1")
	if remote := gittest.Git(t, origin, "rev-parse", "entire/checkpoints/v1"); remote != local {
		t.Errorf("origin has %s, local %s", remote, local)
	}
}
