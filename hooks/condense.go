package hooks

import (
	"context"
	"time"

	"github.com/entirecli/entire/internal/panics"
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
func RunCondense(ctx context.Context, env Env) (code int) {
	var perr error
	defer func() {
		if perr != nil {
			env.warnf("[entire] condense: %v\n", perr)
			code = 0
		}
	}()
	defer panics.Recover(&perr)
	repo, err := env.OpenRepo()
	if err != nil {
		return 0
	}
	hs := loadSettings(repo.Root)
	if !hs.enabled() {
		return 0
	}
	senv, log, err := open(env, repo, "condense", hs)
	if err != nil {
		return 0
	}
	defer log.Close()
	done := strategy.CompletePendingWait(ctx, senv, pendingWait)
	log.Info("condense: finished", "condensations", len(done))
	return 0
}
