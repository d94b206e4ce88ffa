package rewind

import (
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// Undo points never leave the machine: after a rewind (an undo point
// holding the raw transcript, a token in it) and a commit (no shadow branch
// left), `git push --mirror` to the checkpoint remote carries no undo data,
// and a push of refs/entire/* is refused.
func TestUndoPointsNeverPushed(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	origin := t.TempDir()
	gittest.Git(t, origin, "init", "-q", "--bare")
	gittest.Git(t, r.Dir, "remote", "add", "origin", origin)
	token := e2etest.FakeToken(1)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.AgentTurn("first turn", map[string]string{"a.txt": "a\n"})
	r.AgentTurn("deploy with "+token, map[string]string{"b.txt": "b\n"})
	first := e2etest.PointOfMessage(t, r.Points(), "first turn")
	if _, errOut, code := r.Entire("rewind", "--to", first.ID); code != 0 {
		t.Fatalf("rewind: %s", errOut)
	}
	r.Commit("work", nil, "-A")
	if bs := e2etest.ShadowBranches(t, r.Dir); len(bs) != 0 {
		t.Fatalf("shadow branches after the commit: %v", bs)
	}

	if out, err := r.GitIn(r.Dir, nil, "push", "--mirror", "origin"); err != nil && !strings.Contains(out, "[entire]") {
		t.Fatalf("git push --mirror origin: %v\n%s", err, out)
	}
	if refs := gittest.Git(t, origin, "for-each-ref", "--format=%(refname)", "refs/entire/"); refs != "" {
		t.Errorf("the mirror push published:\n%s", refs)
	}
	if hits := e2etest.AllObjectsHolding(t, origin, token); len(hits) > 0 {
		t.Errorf("the remote's objects hold the raw token: %v", hits)
	}

	// Whatever sits under refs/entire/ stays here.
	gittest.Git(t, r.Dir, "update-ref", "refs/entire/undo/20250101T000000.000000000Z", "HEAD")
	out, err := r.GitIn(r.Dir, nil, "push", "origin", "refs/entire/*:refs/entire/*")
	if err == nil || !strings.Contains(out, "not pushing refs/entire/undo/20250101T000000.000000000Z to origin") {
		t.Errorf("git push origin 'refs/entire/*:refs/entire/*': err=%v\n%s", err, out)
	}
	if out, err := r.GitIn(r.Dir, nil, "push", "--mirror", "origin"); err == nil {
		t.Errorf("git push --mirror with a ref under refs/entire/ went through:\n%s", out)
	}
	if refs := gittest.Git(t, origin, "for-each-ref", "--format=%(refname)", "refs/entire/"); refs != "" {
		t.Errorf("refused pushes published:\n%s", refs)
	}
}
