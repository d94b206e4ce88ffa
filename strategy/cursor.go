package strategy

import (
	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint/session"
)

// checkpointCursor is the transcript position up to which a session's
// transcript has been analysed.
type checkpointCursor = agent.Position

// cursorOf returns the session's transcript cursor (the start when none).
func cursorOf(st *session.State) checkpointCursor {
	if st.TranscriptCursor == nil {
		return checkpointCursor{}
	}
	c := st.TranscriptCursor
	return checkpointCursor{Entries: c.Entries, Offset: c.Offset, LastID: c.LastID}
}

// setCursor stores the transcript cursor in the session state.
func setCursor(st *session.State, p checkpointCursor) {
	st.TranscriptCursor = &session.TranscriptCursor{Entries: p.Entries, Offset: p.Offset, LastID: p.LastID}
}

// scope is what a turn end or a condensation adds to a session: the
// analysis of its transcript from the session cursor on.
type scope struct {
	*agent.Analysis
	// whole is true when the scan could not start at the cursor (the
	// transcript was rewritten below it, or the cursor was lost while the
	// session had steps): the analysis then covers the session's whole
	// checkpoint scope, so it replaces what was accumulated instead of
	// being added to it.
	whole bool
}

// scanScope analyses a session's transcript from its cursor; see scope.
func (m *ManualCommit) scanScope(in TurnInput, st *session.State) scope {
	return m.scanScopeTurn(in, st, -1)
}

// scanScopeTurn is scanScope ending before the next turn's first prompt
// at or past byte offset after (after < 0: at the end; see scanTurn).
func (m *ManualCommit) scanScopeTurn(in TurnInput, st *session.State, after int64) scope {
	from := cursorOf(st)
	a := m.scanTurn(in, from, after)
	zero := agent.Position{}
	restarted := from != zero && a.From == zero
	lost := from == zero && (st.CheckpointCount > 0 || !st.TokenUsage.IsZero())
	if !restarted && !lost {
		return scope{Analysis: a}
	}
	if restarted {
		// The transcript was cut back below the cursor (a rewind killed
		// between writing it and recording it; a client rewriting its
		// file): where this turn's entries begin is unknown, and the
		// scope's start may be past the cut too. The whole transcript is
		// the scope: earlier prompts and tokens come again rather than
		// this turn's being lost.
		m.env.Log.Warn("transcript shorter than the analysis cursor: scanning it whole",
			"session_id", st.SessionID, "cursor", from)
		return scope{Analysis: m.scanTurn(in, agent.Position{}, after), whole: true}
	}
	m.env.Log.Warn("transcript cursor lost: rescanning the checkpoint scope",
		"session_id", st.SessionID, "checkpoint_transcript_start", st.CheckpointTranscriptStart)
	return scope{Analysis: m.scanTurn(in, agent.Position{Entries: st.CheckpointTranscriptStart}, after), whole: true}
}

// tokens returns the session's token usage for its checkpoint scope:
// accumulated plus this scope's, or this scope's alone when it is whole.
func (s scope) tokens(accumulated *agent.TokenUsage) *agent.TokenUsage {
	u := &agent.TokenUsage{}
	if !s.whole {
		u.Add(accumulated)
	}
	u.Add(&s.Tokens)
	return u
}

// prompts returns the prompts of the checkpoint scope: earlier ones (of
// the session's earlier steps) then these, or these alone when whole.
func (s scope) prompts(earlier, these []string) []string {
	if s.whole {
		return these
	}
	return append(earlier, these...)
}
