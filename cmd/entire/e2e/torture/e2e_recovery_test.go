//go:build unix && torture

package torture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A post-commit that never ran (killed before it marked anything, or
// never started) leaves the trailer prepare-commit-msg added: the mark
// prepare-commit-msg left leads the next agent hook to the commit, which
// it condenses.
func TestE2EPostCommitNeverRanCompletedByNextTurn(t *testing.T) {
	t.Parallel()
	r := e2etest.WorkedSessionRepo(t, "first turn")
	// Only prepare-commit-msg runs: the commit gets its trailer and no
	// post-commit.
	only := t.TempDir()
	shim, err := os.ReadFile(e2etest.GitPath(t, r.Dir, "hooks/prepare-commit-msg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(only, "prepare-commit-msg"), shim, 0o755); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, r.Dir, "add", "-A")
	if out, err := e2etest.GitCmd(t, r, "-c", "core.hooksPath="+only, "commit", "-q", "-m", "first").CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	first := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if first == "" || e2etest.HasCheckpoint(t, r.Dir, first) {
		t.Fatalf("setup: trailer %q, checkpoint written: %v", first, first != "" && e2etest.HasCheckpoint(t, r.Dir, first))
	}

	r.AgentTurn("second turn", map[string]string{"b.txt": "b\n"})
	if !e2etest.HasCheckpoint(t, r.Dir, first) {
		t.Fatalf("the next turn did not complete checkpoint %s", first)
	}
	if p := r.SlotFile(first, "prompt.txt"); !strings.Contains(p, "first turn") {
		t.Errorf("checkpoint %s prompts: %q", first, p)
	}
	second, _ := r.Commit("second", nil, "-A")
	if p := r.SlotFile(second, "prompt.txt"); p != "first turn\n\n---\n\nsecond turn" {
		t.Errorf("checkpoint %s prompts: %q", second, p)
	}
	r.AssertNoPendingMarks()
	e2etest.AssertStoreClean(t, r.Dir, first, second)
}

// The pre-push hook completes an interrupted condensation before it pushes
// the metadata branch: the remote gets the checkpoint the pushed commit's
// trailer names.
func TestE2EPrePushCompletesCondensation(t *testing.T) {
	t.Parallel()
	r := e2etest.WorkedSessionRepo(t, "the work")
	origin := t.TempDir()
	gittest.Git(t, origin, "init", "-q", "--bare")
	gittest.Git(t, r.Dir, "remote", "add", "origin", origin)
	id := r.KilledCondensation("the work")
	if out, err := r.GitIn(r.Dir, nil, "push", "-q", "origin", "main"); err != nil {
		t.Fatalf("git push: %v\n%s", err, out)
	}
	e2etest.AwaitBackground(t)
	if !e2etest.HasCheckpoint(t, origin, id) {
		t.Fatalf("origin lacks checkpoint %s of the pushed commit", id)
	}
}

// When the commit of an interrupted condensation is gone (reset away and
// pruned), doctor says so and forgets it.
func TestDoctorReportsLostCondensation(t *testing.T) {
	t.Parallel()
	r := e2etest.WorkedSessionRepo(t, "the work")
	id := r.KilledCondensation("the work")
	commit := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	gittest.Git(t, r.Dir, "reset", "-q", "--hard", "HEAD~1")
	gittest.Git(t, r.Dir, "reflog", "expire", "--expire=now", "--all")
	gittest.Git(t, r.Dir, "gc", "-q", "--prune=now")
	out, _, code := r.Entire("doctor", "--force")
	if code != 0 || !strings.Contains(out, commit[:7]) || !strings.Contains(out, id) || !strings.Contains(out, "no longer exists") {
		t.Errorf("doctor: exit %d\n%s", code, out)
	}
	r.AssertNoPendingMarks()
}
