package strategy

import (
	"context"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/panics"
)

// Turn-end wait bounds: how long a turn end waits for the agent's transcript
// to hold the turn, and how often it looks.
const (
	turnEndWaitLimit = 3 * time.Second
	turnEndPoll      = 5 * time.Millisecond
)

func (e *Env) after(d time.Duration) <-chan time.Time {
	if e.After != nil {
		return e.After(d)
	}
	return time.After(d)
}

// awaitTurnEnd waits until the transcript holds the end of the turn that
// started at `from`, for agents that may run the turn-end hook before
// writing it (agent.TurnEndWatcher), at most turnEndWaitLimit by the
// injected clock. It returns at once for other agents; when the limit or
// ctx ends the wait, it logs why and the turn is checkpointed as the
// transcript stands.
func (e *Env) awaitTurnEnd(ctx context.Context, in TurnInput, from agent.Position) {
	w, ok := in.Agent.(agent.TurnEndWatcher)
	if !ok || in.TranscriptPath == "" {
		return
	}
	check := w.WatchTurnEnd(in.TranscriptPath, from, in.End)
	start := e.Now()
	deadline := start.Add(turnEndWaitLimit)
	for {
		done, err := check()
		if err != nil {
			e.Log.Warn("turn end: cannot watch the transcript", "path", in.TranscriptPath, "error", err)
			return
		}
		if done {
			if waited := e.Now().Sub(start); waited > 0 {
				e.Log.Info("turn end: waited for the transcript", "waited_ms", waited.Milliseconds())
			}
			return
		}
		if !e.Now().Before(deadline) {
			e.Log.Warn("turn end: the transcript does not show the turn's end; checkpointing it as it stands",
				"path", in.TranscriptPath, "waited_ms", e.Now().Sub(start).Milliseconds(), "by_final_answer", in.End.HasFinalAnswer)
			return
		}
		select {
		case <-ctx.Done():
			e.Log.Warn("turn end: wait for the transcript cancelled", "error", ctx.Err())
			return
		case <-e.after(turnEndPoll):
		}
	}
}

// turnStartCursor returns where the session's transcript stood when its
// turn started, the cursor of its last turn end, and the session's state
// (the start and nil for a session without state).
func (e *Env) turnStartCursor(sessionID string) (agent.Position, *session.State) {
	st, err := e.Sessions.Load(sessionID)
	if err != nil {
		return agent.Position{}, nil
	}
	return cursorOf(st), st
}

// sameStored reports whether two stored-transcript states are the same.
func sameStored(a, b *checkpoint.TranscriptState) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ContentHash == b.ContentHash && a.SourceOffset == b.SourceOffset && len(a.Chunks) == len(b.Chunks)
}

// statusAtTurnEnd starts the turn end's one git status at once, so that it
// records the work tree as it stood when the hook was called, and returns a
// function that waits for it; meanwhile the caller waits for the
// transcript (awaitTurnEnd).
func (e *Env) statusAtTurnEnd(ctx context.Context) func() (*worktreeStatus, error) {
	done := make(chan struct{})
	var ws *worktreeStatus
	var err error
	go func() {
		defer close(done)
		defer panics.Recover(&err)
		panics.Inject(e.Getenv, "turn-end-status")
		ws, err = readStatus(ctx, e.Repo)
	}()
	return func() (*worktreeStatus, error) {
		<-done
		return ws, err
	}
}
