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

// A turn end whose transcript was not complete when the hook ran (Claude
// Code writes the turn's last line up to 100 ms after calling Stop) is
// saved at once and finished in the background by `entire hooks
// finish-turn`, so that the agent does not wait for its own transcript.
// The finishing process holds the session's finish lock (handed over from
// the hook, so there is no moment without it); commands that read
// temporary checkpoints wait for it.

// finishTurnLimit bounds a finishing process: the wait for the transcript
// (3 s) and the step's amendment.
const finishTurnLimit = 30 * time.Second

// finishLater returns the strategy.Env.FinishLater of a hook: it starts
// `<this binary> hooks finish-turn` detached from the agent (new session,
// no inherited pipes), with the request as its stdin and the session's
// finish lock as descriptor 3.
func finishLater(senv *strategy.Env) func(strategy.TurnFinish) error {
	return func(req strategy.TurnFinish) error {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("find the entire binary: %w", err)
		}
		data, err := json.Marshal(req)
		if err != nil {
			return err
		}
		// The request goes through an unlinked file: nothing of this
		// process has to outlive it to feed the child.
		in, err := os.CreateTemp(senv.Sessions.Dir(), ".finish-*.json")
		if err != nil {
			return fmt.Errorf("finish request: %w", err)
		}
		os.Remove(in.Name())
		defer in.Close()
		if _, err := in.Write(data); err != nil {
			return fmt.Errorf("finish request: %w", err)
		}
		if _, err := in.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("finish request: %w", err)
		}
		lock, err := senv.Sessions.LockTurnFinish(req.SessionID)
		if err != nil {
			return err
		}
		defer lock.Close() // the child keeps its copy, and the lock
		cmd := exec.Command(exe, "hooks", "finish-turn")
		cmd.Dir = senv.Repo.Root
		cmd.Stdin = in
		cmd.ExtraFiles = []*os.File{lock}
		proc.NewSession(cmd)
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start the turn finisher: %w", err)
		}
		senv.Log.Info("turn end: finishing in the background", "session_id", req.SessionID, "pid", cmd.Process.Pid)
		return cmd.Process.Release()
	}
}

// RunFinishTurn handles `entire hooks finish-turn`: it reads a
// strategy.TurnFinish from stdin and finishes the turn. Failures are
// logged, a panic included; the exit status is 0 (nothing waits for it).
func RunFinishTurn(ctx context.Context, env Env) (code int) {
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
	var req strategy.TurnFinish
	if err := json.NewDecoder(io.LimitReader(env.Stdin, 16<<20)).Decode(&req); err != nil {
		log.Warn("finish turn: bad request", "error", err)
		return 0
	}
	senv.Prewarm()
	if err := strategy.NewManualCommit(senv).FinishTurn(ctx, req); err != nil {
		log.Warn("finish turn", "session_id", req.SessionID, "error", err)
	}
	return 0
}
