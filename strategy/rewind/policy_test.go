package rewind

import (
	"context"
	"testing"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// Under auto-commit a rewind to a committed point off main and master
// resets the branch; anything else does not.
func TestResetsBranch(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	dir := fx.dir
	onMain := gittest.Git(t, dir, "rev-parse", "HEAD")
	gittest.Git(t, dir, "checkout", "-q", "-b", "feature")
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "turn 1")
	onFeature := gittest.Git(t, dir, "rev-parse", "HEAD")
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "turn 2")
	atOrigin := gittest.Git(t, dir, "rev-parse", "HEAD")
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "turn 3")
	localOnly := gittest.Git(t, dir, "rev-parse", "HEAD")
	// origin/master knows turn 2 (and so turn 1); turn 3 is only local.
	gittest.Git(t, dir, "update-ref", "refs/remotes/origin/master", atOrigin)
	gittest.Git(t, dir, "checkout", "-q", "-b", "other", onMain)
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "elsewhere")
	elsewhere := gittest.Git(t, dir, "rev-parse", "HEAD")
	rw := fx.rewinder()
	for _, tc := range []struct {
		name     string
		p        Point
		strategy string
		want     bool
	}{
		{"auto-commit, off main and master", Point{ID: elsewhere, IsLogsOnly: true}, checkpoint.StrategyAutoCommit, true},
		{"auto-commit, past origin/master", Point{ID: localOnly, IsLogsOnly: true}, checkpoint.StrategyAutoCommit, true},
		{"auto-commit, on main", Point{ID: onMain, IsLogsOnly: true}, checkpoint.StrategyAutoCommit, false},
		{"auto-commit, on origin/master", Point{ID: onFeature, IsLogsOnly: true}, checkpoint.StrategyAutoCommit, false},
		{"manual-commit", Point{ID: elsewhere, IsLogsOnly: true}, checkpoint.StrategyManualCommit, false},
		{"no strategy configured", Point{ID: elsewhere, IsLogsOnly: true}, "", false},
		{"temporary point", Point{ID: elsewhere}, checkpoint.StrategyAutoCommit, false},
	} {
		if got := rw.ResetsBranch(context.Background(), tc.p, tc.strategy); got != tc.want {
			t.Errorf("%s: ResetsBranch = %v, want %v", tc.name, got, tc.want)
		}
	}
}
