package hooks

import (
	"context"
	"time"

	"github.com/entirecli/entire/internal/logging"
	"github.com/entirecli/entire/strategy"
)

// pendingWait bounds how long a pre-push, or the process a post-commit
// started, waits for a condensation another process is writing.
const pendingWait = 60 * time.Second

// RunCondense handles `entire hooks condense`, which a post-commit starts
// detached when a session's turn end is still storing tens of megabytes
// (strategy.Env.CondenseLater): it completes the condensations marked
// pending, the post-commit's among them. Failures are logged (the marks
// stay for the next hook or command); the exit status is 0.
func RunCondense(ctx context.Context, env Env) int {
	return runDetached(ctx, env, "condense", true, &struct{}{}, func(ctx context.Context, senv *strategy.Env, log *logging.Logger) {
		done := strategy.CompletePendingWait(ctx, senv, pendingWait)
		log.Info("condense: finished", "condensations", len(done))
		if len(done) > 0 {
			indexLater(senv)
		}
	})
}
