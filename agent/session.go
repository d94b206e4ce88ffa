package agent

import (
	"time"
)

// AgentSession represents a coding session's data. Each agent stores data in
// its native format and only the originating agent can write it back; the
// query methods below ask that agent (TranscriptReader, TranscriptCutter).
type AgentSession struct {
	SessionID  string
	AgentName  AgentName
	RepoPath   string
	SessionRef string // Path/reference to session in agent's storage
	StartTime  time.Time

	// NativeData holds the session content in the agent's native format
	// (a JSONL transcript, or a JSON document; see TranscriptFormat).
	NativeData []byte

	// Computed fields - populated by the agent when reading.
	ModifiedFiles []string
	NewFiles      []string
	DeletedFiles  []string

	// Entries optionally holds normalized entries.
	Entries []SessionEntry
}

// agent returns the agent that wrote the session: the one AgentName
// names, else the one that recognises NativeData, else the default.
func (s *AgentSession) agent() Agent {
	if a, err := Get(s.AgentName); err == nil {
		return a
	}
	return ForTranscript("", s.NativeData)
}

// FindToolResultUUID finds the ID of the entry holding the result of the
// tool call toolUseID, as the session's agent finds it (TranscriptCutter);
// false when it is not found or the agent's entries have no IDs.
func (s *AgentSession) FindToolResultUUID(toolUseID string) (string, bool) {
	c, ok := s.agent().(TranscriptCutter)
	if !ok || toolUseID == "" {
		return "", false
	}
	return c.ToolResultEntry(s.NativeData, toolUseID)
}

// GetLastAssistantResponse returns the last assistant text of the
// transcript as the session's agent reads it (TranscriptReader), or "".
func (s *AgentSession) GetLastAssistantResponse() string {
	return s.last(RoleAssistant)
}

// GetLastUserPrompt returns the last human prompt of the transcript as the
// session's agent reads it (tool results and meta entries excluded,
// IDE/system tags stripped), or "".
func (s *AgentSession) GetLastUserPrompt() string {
	return s.last(RoleUser)
}

// last returns the text of the last entry of role that has one.
func (s *AgentSession) last(role Role) string {
	var last string
	_, _ = Records(s.agent(), s.NativeData, func(_ int, rec Record) {
		text := ""
		for _, e := range rec.Entries {
			if e.Role == role && e.Text != "" {
				text = e.Text
			}
		}
		if text != "" {
			last = text
		}
	})
	return last
}

// TruncateAtUUID returns a new session whose NativeData ends with the entry
// whose ID is uuid (inclusive), cut as the session's agent cuts its
// transcripts (TranscriptCutter). If uuid is not found, or the agent's
// entries have no IDs, the data is kept whole. Entries are cut the same
// way; computed file lists are not carried over.
func (s *AgentSession) TruncateAtUUID(uuid string) *AgentSession {
	out := *s
	out.ModifiedFiles, out.NewFiles, out.DeletedFiles = nil, nil, nil
	out.NativeData = append([]byte(nil), s.NativeData...)
	if c, ok := s.agent().(TranscriptCutter); ok {
		if cut, found := c.CutAfterEntry(s.NativeData, uuid); found {
			out.NativeData = cut
		}
	}
	if len(s.Entries) > 0 {
		out.Entries = append([]SessionEntry(nil), s.Entries...)
		for i, e := range out.Entries {
			if e.UUID == uuid {
				out.Entries = out.Entries[:i+1]
				break
			}
		}
	}
	return &out
}
