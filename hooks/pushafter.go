package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint/push"
	"github.com/entirecli/entire/internal/lockfile"
	"github.com/entirecli/entire/internal/panics"
	"github.com/entirecli/entire/strategy"
)

// Session logs the pre-push hook does not push itself are pushed by
// `entire hooks push-after`, which it starts detached: on the first push
// of the user's to a remote without a branch of theirs (push.ErrDeferred),
// once the user's branch is on the remote, since it must land first; and
// when there is more to push than the user's push should wait for
// (push.ErrBackground), at once. It pushes as the pre-push hook would
// have, a large branch in batches. One runs at a time in a repository
// (pushAfterLock); the next waits for it.

// pushAfterLimit bounds the wait for the user's push to land: longer than
// any push of the user's that has a chance.
const pushAfterLimit = 10 * time.Minute

// pushAfterPendingWait bounds how long push-after waits for each
// condensation still being written before it pushes.
const pushAfterPendingWait = 5 * time.Minute

// pushAfterRequest is what `entire hooks push-after` reads on stdin.
type pushAfterRequest struct {
	Remote string `json:"remote"`
	// Refs are the user's pushed branches to wait for; none: push at once.
	Refs []push.LandedRef `json:"refs"`
}

// pushAfterLock is the lock (in the git common directory) one push-after
// holds while it pushes.
const pushAfterLock = "entire-push-after.lock"

// pushAfter starts `<this binary> hooks push-after` detached from git
// (git's push does not wait for it), with the request as its stdin.
func pushAfter(senv *strategy.Env, remote string, refs []push.LandedRef) error {
	pid, err := startDetached(senv, "push-after", pushAfterRequest{Remote: remote, Refs: refs})
	if err != nil {
		return fmt.Errorf("start the push of session logs: %w", err)
	}
	senv.Log.Info("pre-push: the session logs are pushed in the background", "remote", remote, "wait_for_landing", len(refs) > 0, "pid", pid)
	return nil
}

// RunPushAfter handles `entire hooks push-after`: it reads a
// pushAfterRequest from stdin, waits until the remote holds one of the
// user's pushed branches, and pushes the session logs there (guarded and
// scanned as the pre-push hook does). Failures are logged; the exit status
// is 0 (nothing waits for it).
func RunPushAfter(ctx context.Context, env Env) (code int) {
	var perr error
	defer func() {
		if perr != nil {
			env.warnf("[entire] push-after: %v\n", perr)
			code = 0
		}
	}()
	defer panics.Recover(&perr)
	ctx, cancel := context.WithTimeout(ctx, pushAfterLimit+time.Minute)
	defer cancel()
	repo, err := env.OpenRepo()
	if err != nil {
		return 0
	}
	senv, log, err := open(env, repo, "push", loadSettings(repo.Root))
	if err != nil {
		return 0
	}
	defer log.Close()
	var req pushAfterRequest
	if err := json.NewDecoder(io.LimitReader(env.Stdin, 1<<20)).Decode(&req); err != nil {
		log.Warn("push-after: bad request", "error", err)
		return 0
	}
	log.Info("push-after: started", "remote", req.Remote)
	defer log.Info("push-after: finished", "remote", req.Remote)
	if len(req.Refs) > 0 {
		if err := push.WaitLanded(ctx, repo, req.Remote, req.Refs, pushAfterLimit, nil); err != nil {
			log.Warn("push-after: the user's push did not land; the session logs go with the next push", "remote", req.Remote, "error", err)
			return 0
		}
	}
	lock, err := lockfile.Acquire(filepath.Join(repo.CommonDir, pushAfterLock), lockfile.Options{Timeout: pushAfterLimit})
	if err != nil {
		log.Warn("push-after: another push of session logs holds the lock", "error", err)
		return 0
	}
	defer lock.Release()
	// A condensation the pre-push gave up waiting for (its background
	// process starved by a loaded machine) goes with this push: nobody
	// waits for this process, so it can wait longer.
	strategy.CompletePendingWait(ctx, senv, pushAfterPendingWait)
	// Its lines go to the log: no terminal waits for them.
	senv.Stderr = logLines{log.Logger}
	// PrePush reports its own failures (to the log, through Stderr): the
	// last line says only that this process is done.
	if err := backgroundPush(ctx, senv, req.Remote); err != nil && !errors.Is(err, push.ErrDeferred) {
		log.Warn("push-after", "error", err)
	}
	return 0
}

// logLines is an io.Writer that logs what is written to it, a line at a
// time, as Info: the "[entire] ..." lines of a push nobody watches.
type logLines struct{ log *slog.Logger }

func (l logLines) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if line != "" {
			l.log.Info(strings.TrimPrefix(line, "[entire] "))
		}
	}
	return len(p), nil
}
