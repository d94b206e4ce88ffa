package rewind

import (
	"context"

	"github.com/entirecli/entire/checkpoint"
)

// ResetsBranch reports whether rewinding to p, when neither a reset nor a
// logs-only restore was asked for, resets the branch to p instead: under
// the auto-commit strategy (strategy is the configured strategy's name)
// every turn is a commit, and rewinding to a committed point is a reset of
// the branch (SPEC 5.3), unless the commit is already on main or master,
// locally or at origin. A temporary point is never rewound this way.
func (r *Rewinder) ResetsBranch(ctx context.Context, p Point, strategy string) bool {
	if !p.IsLogsOnly || strategy != checkpoint.StrategyAutoCommit {
		return false
	}
	for _, b := range []string{"main", "master", "origin/main", "origin/master"} {
		if _, err := r.repo.RunGit(ctx, "merge-base", "--is-ancestor", p.ID, b); err == nil {
			return false
		}
	}
	return true
}
