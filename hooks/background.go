package hooks

import (
	"context"
	"encoding/json"
	"io"

	"github.com/entirecli/entire/internal/logging"
	"github.com/entirecli/entire/internal/panics"
	"github.com/entirecli/entire/strategy"
)

// runDetached is the frame of a process a hook started detached
// (startDetached): it opens the repository and its strategy environment
// (component names its log lines), decodes the JSON request on stdin into
// req, and runs fn. When enabledOnly is set it does nothing in a
// repository where entire is disabled. Failures and panics are logged;
// the exit status is 0, as nothing waits for the process.
func runDetached(ctx context.Context, env Env, component string, enabledOnly bool, req any, fn func(ctx context.Context, senv *strategy.Env, log *logging.Logger)) (code int) {
	var perr error
	defer func() {
		if perr != nil {
			env.warnf("[entire] %s: %v\n", component, perr)
			code = 0
		}
	}()
	defer panics.Recover(&perr)
	repo, err := env.OpenRepo()
	if err != nil {
		return 0
	}
	hs := loadSettings(repo.Root)
	if enabledOnly && !hs.enabled() {
		return 0
	}
	senv, log, err := open(env, repo, component, hs)
	if err != nil {
		return 0
	}
	defer log.Close()
	if err := json.NewDecoder(io.LimitReader(env.Stdin, 1<<20)).Decode(req); err != nil {
		log.Warn(component+": bad request", "error", err)
		return 0
	}
	fn(ctx, senv, log)
	return 0
}
