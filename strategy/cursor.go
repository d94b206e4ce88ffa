package strategy

import (
	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/session"
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
