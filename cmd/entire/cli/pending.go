package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/strategy"
)

// pendingWait bounds how long a command waits for a condensation another
// process is writing.
const pendingWait = 60 * time.Second

// completePending completes, before a command reads checkpoints, the
// condensations that a killed post-commit hook left (see
// strategy.CompletePending), says so on stderr, and returns them. It costs
// one directory read when there are none.
func completePending(ctx context.Context, f *factory, repo *gitrepo.Repo) []strategy.Pending {
	turnEnds := strategy.HasPendingTurnEnds(sessionStore(f, repo), repo)
	if !strategy.HasPending(repo) && !turnEnds {
		return nil
	}
	env, log := openStrategyEnv(f, repo, "pending")
	defer log.Close()
	if turnEnds {
		// Steps still being written after their turn ended: a command that
		// reads checkpoints waits for them (or writes them, when their
		// process was killed).
		strategy.SettleAllTurnEnds(ctx, env)
	}
	// A condensation a post-commit handed to a process of its own may be
	// under way: the command waits for it (bounded).
	done := strategy.CompletePendingWait(ctx, env, pendingWait)
	for _, p := range done {
		if p.Err == nil {
			fmt.Fprintf(f.IO.ErrOut, "Completed the interrupted condensation of commit %s (checkpoint %s)\n", p.Commit[:7], p.CheckpointID)
		}
	}
	return done
}

// reportPending is doctor's part: it completes what it can, reports the
// condensations that cannot be completed (the commit is gone, or its
// sessions' data) and forgets them. It returns how many it reported.
func reportPending(ctx context.Context, f *factory, repo *gitrepo.Repo) int {
	completePending(ctx, f, repo)
	failed := strategy.FailedPending(repo)
	for _, p := range failed {
		fmt.Fprintf(f.IO.Out, "Commit %s links checkpoint %s, whose condensation was interrupted and cannot be completed: %v\n", p.Commit[:7], p.CheckpointID, p.Err)
		if err := strategy.DropFailed(repo, p); err != nil {
			fmt.Fprintf(f.IO.ErrOut, "Warning: %v\n", err)
		}
	}
	return len(failed)
}
