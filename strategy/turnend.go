package strategy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/panics"
	"github.com/go-git/go-git/v5/plumbing"
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

// turnEndSeen reports whether the transcript already holds the end of the
// turn that started at from, with one look (true for agents that write
// their transcript before the turn-end hook runs).
func (e *Env) turnEndSeen(in TurnInput, from agent.Position) bool {
	w, ok := in.Agent.(agent.TurnEndWatcher)
	if !ok || in.TranscriptPath == "" {
		return true
	}
	done, err := w.WatchTurnEnd(in.TranscriptPath, from, in.End)()
	return done || err != nil
}

// TurnFinish is a turn end that was saved before the agent had written the
// turn's end to its transcript: what FinishTurn needs to complete the
// step. It travels as JSON to the process that finishes the turn.
type TurnFinish struct {
	SessionID      string          `json:"session_id"`
	Agent          agent.AgentName `json:"agent"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd,omitempty"`
	End            agent.TurnEnd   `json:"end"`
	// From is where the turn started in the transcript; Cursor where the
	// turn end's scan stopped.
	From   agent.Position `json:"from"`
	Cursor agent.Position `json:"cursor"`
	// Step is the step commit on shadow branch Branch; Transcript the
	// session's stored transcript it holds.
	Step       string                      `json:"step"`
	Branch     string                      `json:"branch"`
	Transcript *checkpoint.TranscriptState `json:"transcript"`
}

// FinishTurn completes a turn end saved before the agent had written the
// turn's end (TurnFinish): it waits for that end (awaitTurnEnd: bounded, by
// the injected clock), stores the transcript lines that came since the
// step, amends the step with them and counts their usage. It changes
// nothing when the session moved on meanwhile (another step, a
// condensation, a rewind): what those stored already holds the lines.
func (m *ManualCommit) FinishTurn(ctx context.Context, req TurnFinish) error {
	ag, err := agent.Get(req.Agent)
	if err != nil {
		return err
	}
	step := plumbing.NewHash(req.Step)
	if step.IsZero() || req.Transcript == nil {
		return fmt.Errorf("finish turn of %s: no step", req.SessionID)
	}
	in := TurnInput{Agent: ag, SessionID: req.SessionID, TranscriptPath: req.TranscriptPath, Cwd: req.Cwd, End: req.End}
	m.env.awaitTurnEnd(ctx, in, req.From)
	amended := plumbing.ZeroHash
	err = m.env.Sessions.Update(req.SessionID, func(st *session.State, exists bool) error {
		if !exists || !sameStored(st.ShadowTranscript, req.Transcript) || cursorOf(st) != req.Cursor {
			return errNoChange // superseded
		}
		src, err := m.readTranscript(st, in)
		if err != nil {
			return err
		}
		defer src.close()
		if src.doc != nil || src.restart || !src.hasLines() {
			return errNoChange // nothing came, or the file was rewritten
		}
		a := m.scan(in, req.Cursor)
		ts, err := m.storeSource(st, src)
		if err != nil {
			return err
		}
		changes, err := ts.TreeChanges(m.env.Repo, metadataDir(st.SessionID))
		if err != nil {
			return err
		}
		if amended, err = checkpoint.AmendStep(m.env.Repo, req.Branch, step, changes); err != nil {
			if errors.Is(err, checkpoint.ErrStepMoved) {
				return errNoChange
			}
			return err
		}
		st.ShadowTranscript = ts
		setCursor(st, a.To)
		if st.TokenUsage == nil {
			st.TokenUsage = &agent.TokenUsage{}
		}
		st.TokenUsage.Add(&a.Tokens)
		return nil
	})
	if errors.Is(err, errNoChange) {
		m.env.Log.Info("turn end: nothing to finish", "session_id", req.SessionID)
		return nil
	}
	if err != nil {
		return fmt.Errorf("finish turn of %s: %w", req.SessionID, err)
	}
	m.env.Log.Info("turn end: finished", "session_id", req.SessionID, "step", req.Step, "amended", amended.String())
	return nil
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
