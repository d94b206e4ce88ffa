package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/entirecli/entire/internal/panics"
	"github.com/entirecli/entire/internal/proc"
	"github.com/entirecli/entire/strategy"
)

// A turn end is saved while the agent waits with the work tree only; its
// step (the transcript's new lines, analysed, redacted and stored, and the
// step commit) is written afterwards by `entire hooks finish-turn`, a
// process of its own started detached from the agent (see
// strategy.FinishTurnEnds). It holds the session's finish lock, handed
// over from the hook so that there is no moment without it; what reads
// the session's steps waits for it.

// finishTurnLimit bounds a finishing process: the wait for the agent's
// transcript (3 s per turn end) and the steps of the turn ends it finds.
const finishTurnLimit = 5 * time.Minute

// finishRequest is what the finishing process reads on its standard
// input.
type finishRequest struct {
	SessionID string `json:"session_id"`
}

// finishLater returns the strategy.Env.FinishLater of a hook: unless a
// process already finishes the session's turn ends (it holds the finish
// lock, and takes what was added meanwhile), it starts `<this binary>
// hooks finish-turn` detached from the agent (new session, no inherited
// pipes), with the request as its stdin and the session's finish lock as
// descriptor 3.
func finishLater(senv *strategy.Env) func(sessionID string) error {
	return func(sessionID string) error {
		lock, err := senv.Sessions.TryLockTurnFinish(sessionID)
		if err != nil {
			return err
		}
		if lock == nil {
			return nil // one runs (or none can be handed the lock: see TryLockTurnFinish)
		}
		defer lock.Close() // the child keeps its copy, and the lock
		pid, err := startDetached(senv, "finish-turn", finishRequest{SessionID: sessionID}, lock)
		if err != nil {
			return fmt.Errorf("start the turn finisher: %w", err)
		}
		senv.Log.Info("turn end: finishing in the background", "session_id", sessionID, "pid", pid)
		return nil
	}
}

// startDetached starts `<this binary> hooks <verb>` detached from the
// hook (a new session, no inherited pipes: what waits for the hook does
// not wait for it), with request as JSON on its stdin and extra as its
// descriptors 3 and on, and returns its process ID. The request goes
// through an unlinked file: nothing of this process has to outlive it to
// feed the child.
func startDetached(senv *strategy.Env, verb string, request any, extra ...*os.File) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("find the entire binary: %w", err)
	}
	data, err := json.Marshal(request)
	if err != nil {
		return 0, err
	}
	in, err := os.CreateTemp(senv.Sessions.Dir(), "."+verb+"-*.json")
	if err != nil {
		return 0, fmt.Errorf("%s request: %w", verb, err)
	}
	os.Remove(in.Name())
	defer in.Close()
	if _, err := in.Write(data); err != nil {
		return 0, fmt.Errorf("%s request: %w", verb, err)
	}
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("%s request: %w", verb, err)
	}
	cmd := exec.Command(exe, "hooks", verb)
	cmd.Dir = senv.Repo.Root
	cmd.Stdin = in
	cmd.ExtraFiles = extra
	proc.NewSession(cmd)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	return pid, cmd.Process.Release()
}

// RunFinishTurn handles `entire hooks finish-turn`: it reads a
// finishRequest from stdin and writes the steps of the session's pending
// turn ends. The finish lock it inherited as descriptor 3 is released
// once none is left. Failures are logged, a panic included; the exit
// status is 0 (nothing waits for it).
func RunFinishTurn(ctx context.Context, env Env) (code int) {
	lock := os.NewFile(3, "finish-lock")
	release := func() {
		if lock != nil {
			lock.Close()
			lock = nil
		}
	}
	defer release()
	var perr error
	defer func() {
		if perr != nil {
			env.warnf("[entire] finish turn: %v\n", perr)
			code = 0
		}
	}()
	defer panics.Recover(&perr)
	ctx, cancel := context.WithTimeout(ctx, finishTurnLimit)
	defer cancel()
	repo, err := env.OpenRepo()
	if err != nil {
		return 0
	}
	hs := loadSettings(repo.Root)
	if !hs.enabled() {
		return 0
	}
	senv, log, err := open(env, repo, "finish", hs)
	if err != nil {
		return 0
	}
	defer log.Close()
	var req finishRequest
	if err := json.NewDecoder(io.LimitReader(env.Stdin, 1<<20)).Decode(&req); err != nil {
		log.Warn("finish turn: bad request", "error", err)
		return 0
	}
	senv.Prewarm()
	// What a command waiting for the steps needs is the objects, not
	// their compression: large ones are deflated once the lock is given
	// back.
	senv.Repo.DeferDeflation()
	defer func() {
		release()
		if err := senv.Repo.CompressLoose(senv.Repo.Deferred()); err != nil {
			log.Warn("finish turn: compress objects", "error", err)
		}
	}()
	if err := strategy.NewManualCommit(senv).FinishTurnEnds(ctx, req.SessionID, release); err != nil {
		log.Warn("finish turn", "session_id", req.SessionID, "error", err)
		logPanic(log, err)
		if rerr := senv.Sessions.RecordFault(req.SessionID, "finish-turn", err); rerr != nil {
			log.Warn("hook failure count", "error", rerr)
		}
	}
	return 0
}
