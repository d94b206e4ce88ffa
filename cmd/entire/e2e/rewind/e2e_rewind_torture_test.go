//go:build torture

package rewind

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/testtier"
)

func TestRewindRoundTripMatrix(t *testing.T) {
	t.Parallel()
	r, states, transcripts := matrixRepo(t)
	pts := r.Points()
	if len(pts) != 5 {
		t.Fatalf("want 5 points, got %+v", pts)
	}
	final := e2etest.Snapshot(t, r.Dir)
	finalTranscript, _ := os.ReadFile(r.Transcript)
	// The quick tier rewinds to turns 1 and 3; the torture tier to each.
	visits := 0
	for k := 1; k <= 4; k += testtier.Count(2, 1) {
		visits++
		p := e2etest.PointOfTurn(t, pts, k)
		if p.SessionID != "sess-1" || p.MetadataDir != ".entire/metadata/sess-1" {
			t.Errorf("point %+v", p)
		}
		// from a subdirectory, with a 7-character prefix
		out, errOut, code := e2etest.RunEntire(t, filepath.Join(r.Dir, "newdir"), r.Env, "", "rewind", "--to", p.ID[:7])
		if code != 0 || out != "Restored files from shadow commit "+p.ID[:7]+"\n" {
			t.Fatalf("rewind to turn %d: exit %d stdout %q stderr %s", k, code, out, errOut)
		}
		if !strings.Contains(errOut, "claude -r sess-1") || !strings.Contains(errOut, "entire rewind --undo") {
			t.Errorf("rewind output lacks resume or undo hint:\n%s", errOut)
		}
		if d := e2etest.DiffStates(states[k-1], e2etest.Snapshot(t, r.Dir)); d != "" {
			t.Errorf("after rewind to turn %d the work tree differs:\n%s", k, d)
		}
		if got, _ := os.ReadFile(r.Transcript); string(got) != transcripts[k-1] {
			t.Errorf("after rewind to turn %d the transcript has %d bytes, want %d", k, len(got), len(transcripts[k-1]))
		}
		if b, err := os.ReadFile(filepath.Join(r.Dir, "build/out2.log")); err != nil || string(b) != "also ignored\n" {
			t.Errorf("ignored file touched: %q %v", b, err)
		}
		_, errOut, code = r.Entire("rewind", "--undo")
		if code != 0 || !strings.Contains(errOut, "undo point") {
			t.Fatalf("undo after turn %d: %d %s", k, code, errOut)
		}
		if d := e2etest.DiffStates(final, e2etest.Snapshot(t, r.Dir)); d != "" {
			t.Errorf("after undo of rewind to turn %d the work tree differs:\n%s", k, d)
		}
		if got, _ := os.ReadFile(r.Transcript); string(got) != string(finalTranscript) {
			t.Errorf("undo did not restore the transcript")
		}
	}
	// Each rewind and undo was recorded as a new step (the branch never
	// moved back), and none of those steps is a point of its own: the
	// list is the turns, as before.
	if pts2 := r.Points(); len(pts2) != len(pts) || pts2[len(pts2)-1].ID != pts[len(pts)-1].ID {
		t.Errorf("points after %d rewinds and undos: %d, want %d", visits, len(pts2), len(pts))
	}
	if n := gittest.Git(t, r.Dir, "rev-list", "--count", pts[0].ID+".."+e2etest.ShadowBranches(t, r.Dir)[0]); n != fmt.Sprint(2*visits) {
		t.Errorf("%s steps recorded after the last turn, want %d (a rewind and an undo each of %d times)", n, 2*visits, visits)
	}
	if undo := e2etest.UndoPoints(t, r.Dir); len(undo) != visits {
		t.Errorf("%d undo points, want %d: %v", len(undo), visits, undo)
	}
	gittest.Fsck(t, r.Dir)
}

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
