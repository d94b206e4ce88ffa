//go:build unix && torture

package torture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/lockfile/lockfiletest"
)

// A post-commit killed during condensation (its trailer already in the
// commit) is completed by the next agent hook: every commit's trailer then
// resolves to its checkpoint, the first one with the first turn's work.
func TestE2EKilledCondensationCompletedByNextTurn(t *testing.T) {
	t.Parallel()
	r := e2etest.WorkedSessionRepo(t, "first turn")
	first := r.KilledCondensation("first")

	r.AgentTurn("second turn", map[string]string{"b.txt": "b\n"})
	if !e2etest.HasCheckpoint(t, r.Dir, first) {
		t.Fatalf("the next turn did not complete checkpoint %s", first)
	}
	if p := r.SlotFile(first, "prompt.txt"); !strings.Contains(p, "first turn") || strings.Contains(p, "second turn") {
		t.Errorf("checkpoint %s prompts: %q", first, p)
	}
	second, _ := r.Commit("second", nil, "-A")
	if p := r.SlotFile(second, "prompt.txt"); p != "first turn\n\n---\n\nsecond turn" {
		t.Errorf("checkpoint %s prompts: %q", second, p)
	}
	for _, rev := range []string{"HEAD~1", "HEAD"} {
		if id := e2etest.CheckpointAt(t, r.Dir, rev); !e2etest.HasCheckpoint(t, r.Dir, id) {
			t.Errorf("%s's trailer %s resolves to no checkpoint", rev, id)
		}
	}
	r.AssertNoPendingMarks()
	e2etest.AssertStoreClean(t, r.Dir, first, second)
}

// A post-commit killed between writing its mark's owner record and
// linking it into place leaves a spare file: the next hook removes it once
// its maker is gone.
func TestE2EKilledMarkSpareRemoved(t *testing.T) {
	t.Parallel()
	r := e2etest.WorkedSessionRepo(t, "first turn")
	pending := e2etest.GitPath(t, r.Dir, "entire-pending")
	if err := os.MkdirAll(pending, 0o755); err != nil {
		t.Fatal(err)
	}
	spare := filepath.Join(pending, strings.Repeat("a", 40)+"-0123456789ab.4242-x1.new.lock")
	if err := os.WriteFile(spare, lockfiletest.DeadOwner(t).Encode(), 0o644); err != nil {
		t.Fatal(err)
	}
	r.AgentTurn("second turn", map[string]string{"b.txt": "b\n"})
	if _, err := os.Stat(spare); err == nil {
		t.Errorf("the spare of a killed post-commit is still there:\n%s", e2etest.LogText(r.Dir))
	}
	r.AssertNoPendingMarks()
}

// A post-commit killed after it wrote the checkpoint and before it saved
// the session is completed without writing the session's slot twice: the
// checkpoint stays as written, and the session moves onto the commit.
func TestE2EKilledAfterCheckpointCompletedOnce(t *testing.T) {
	t.Parallel()
	r := e2etest.WorkedSessionRepo(t, "the work")
	// What the kill leaves: the session state and shadow branch as before
	// the commit, the mark of a post-commit that is gone.
	stateBefore, err := os.ReadFile(r.StatePath(r.SessionID))
	if err != nil {
		t.Fatal(err)
	}
	shadow := r.ShadowBranch()
	tip := gittest.Git(t, r.Dir, "rev-parse", shadow)
	id, _ := r.Commit("the work", nil, "-A")
	metadataTip := gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1")
	prompts, meta := r.SlotFile(id, "prompt.txt"), r.SlotFile(id, "metadata.json")
	os.WriteFile(r.StatePath(r.SessionID), stateBefore, 0o600)
	gittest.Git(t, r.Dir, "update-ref", "refs/heads/"+shadow, tip)
	dead := lockfiletest.DeadOwner(t)
	os.MkdirAll(e2etest.GitPath(t, r.Dir, "entire-pending"), 0o755)
	mark := e2etest.GitPath(t, r.Dir, "entire-pending/"+gittest.Git(t, r.Dir, "rev-parse", "HEAD")+"-"+id)
	os.WriteFile(mark, dead.Encode(), 0o644)

	r.AgentTurn("more work", map[string]string{"b.txt": "b\n"})
	if _, err := os.Lstat(mark); !os.IsNotExist(err) {
		t.Fatalf("mark left: %v", err)
	}
	if got := gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1"); got != metadataTip {
		t.Errorf("the metadata branch moved: checkpoint %s written again\nprompts now %q, were %q", id, r.SlotFile(id, "prompt.txt"), prompts)
	}
	if got := r.SlotFile(id, "metadata.json"); got != meta {
		t.Errorf("slot metadata now\n%s\nwas\n%s", got, meta)
	}
	if st := r.State(r.SessionID); st["base_commit"] != gittest.Git(t, r.Dir, "rev-parse", "HEAD") {
		t.Errorf("session base %v, want HEAD", st["base_commit"])
	}
	if gittest.Git(t, r.Dir, "branch", "--list", shadow) != "" {
		t.Errorf("the condensed shadow branch %s is left", shadow)
	}
	second, _ := r.Commit("more work", nil, "-A")
	if p := r.SlotFile(second, "prompt.txt"); p != "the work\n\n---\n\nmore work" {
		t.Errorf("second checkpoint prompts: %q", p)
	}
	e2etest.AssertStoreClean(t, r.Dir, id, second)
}

// A post-commit killed after it made its commit's mark and before it
// dropped prepare-commit-msg's trailer mark leaves both: the next hook
// completes the condensation once and removes both marks.
func TestE2EKilledWithTrailerMarkCompletedOnce(t *testing.T) {
	t.Parallel()
	r := e2etest.WorkedSessionRepo(t, "first turn")
	first := r.KilledCondensation("first")
	trailerMark := e2etest.GitPath(t, r.Dir, "entire-pending/trailer-"+first)
	if err := os.WriteFile(trailerMark, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	r.AgentTurn("second turn", map[string]string{"b.txt": "b\n"})
	if !e2etest.HasCheckpoint(t, r.Dir, first) {
		t.Fatalf("the next turn did not complete checkpoint %s", first)
	}
	subjects := strings.Split(gittest.Git(t, r.Dir, "log", "--format=%s", "entire/checkpoints/v1"), "\n")
	if n := countOf(subjects, "Checkpoint: "+first); n != 1 {
		t.Errorf("checkpoint %s written %d times:\n%s", first, n, strings.Join(subjects, "\n"))
	}
	r.AssertNoPendingMarks()
	e2etest.AssertStoreClean(t, r.Dir, first)
}

// Ref locks left by a killed entire (their owner is not running) no
// longer fail the next turns and commits: they are removed and logged.
func TestE2EStaleRefLocksRemoved(t *testing.T) {
	t.Parallel()
	r := e2etest.WorkedSessionRepo(t, "first turn")
	dead := lockfiletest.DeadOwner(t)
	for _, ref := range []string{"refs/heads/" + r.ShadowBranch(), "refs/heads/entire/checkpoints/v1"} {
		if err := os.WriteFile(e2etest.GitPath(t, r.Dir, ref+".lock"), dead.Encode(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	r.AgentTurn("second turn", map[string]string{"b.txt": "b\n"})
	id, _ := r.Commit("both turns", nil, "-A")
	took := time.Since(start)
	// The same turn and commit without locks, as the bound: waiting on a
	// lock costs the 3 s lock timeout, more than a loaded machine's noise.
	start = time.Now()
	r.AgentTurn("third turn", map[string]string{"c.txt": "c\n"})
	r.Commit("third", nil, "-A")
	if baseline := time.Since(start); took > baseline+2500*time.Millisecond {
		t.Errorf("a turn and a commit took %s (%s without stale locks): waited on the stale locks", took, baseline)
	}
	if p := r.SlotFile(id, "prompt.txt"); !strings.Contains(p, "first turn") || !strings.Contains(p, "second turn") {
		t.Errorf("checkpoint prompts: %q", p)
	}
	if log := e2etest.LogText(r.Dir); strings.Count(log, "removed stale lock") != 2 {
		t.Errorf("log:\n%s", log)
	}
	e2etest.AssertStoreClean(t, r.Dir, id)
}

func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}
