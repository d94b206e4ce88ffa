package main

import (
	"strings"
	"testing"

	"github.com/entirecli/entire/gitrepo/gittest"
)

// Session data goes only to the checkpoint remote: a push to another remote
// (even `git push --all`) never carries the entire branches, and shadow
// branches are never pushed.
func TestPushPrivacyEndToEnd(t *testing.T) {
	t.Parallel()
	r := newSessionRepo(t)
	origin, fork := t.TempDir(), t.TempDir()
	gittest.Git(t, origin, "init", "-q", "--bare")
	gittest.Git(t, fork, "init", "-q", "--bare")
	gittest.Git(t, r.dir, "remote", "add", "origin", origin)
	gittest.Git(t, r.dir, "remote", "add", "fork", fork)
	r.hook("session-start", map[string]any{"source": "startup"})
	r.agentTurn("Add a file", map[string]string{"a.txt": "a\n"})
	gittest.Git(t, r.dir, "add", "a.txt")
	if out, err := gitCmd(t, r, "commit", "-q", "-m", "Add a").CombinedOutput(); err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}
	r.agentTurn("Add another", map[string]string{"b.txt": "b\n"}) // leaves a shadow branch

	out, err := gitCmd(t, r, "push", "--all", "fork").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not pushing entire/") {
		t.Fatalf("git push --all fork: err=%v\n%s", err, out)
	}
	if refs := gittest.Git(t, fork, "for-each-ref", "--format=%(refname)"); refs != "" {
		t.Fatalf("fork received refs after a refused push:\n%s", refs)
	}
	if out, err := gitCmd(t, r, "push", "-q", "fork", "main").CombinedOutput(); err != nil {
		t.Fatalf("git push fork main: %v\n%s", err, out)
	}
	if refs := gittest.Git(t, fork, "for-each-ref", "--format=%(refname)"); refs != "refs/heads/main" {
		t.Fatalf("fork refs:\n%s", refs)
	}
	if out, err := gitCmd(t, r, "push", "-q", "origin", "main").CombinedOutput(); err != nil {
		t.Fatalf("git push origin main: %v\n%s", err, out)
	}
	refs := gittest.Git(t, origin, "for-each-ref", "--format=%(refname)")
	if !strings.Contains(refs, "refs/heads/entire/checkpoints/v1") || strings.Contains(refs, "-e3b0c4") {
		t.Fatalf("origin refs:\n%s", refs)
	}
	local := gittest.Git(t, r.dir, "rev-parse", "entire/checkpoints/v1")
	if remote := gittest.Git(t, origin, "rev-parse", "entire/checkpoints/v1"); remote != local {
		t.Errorf("origin has %s, local %s", remote, local)
	}
}
