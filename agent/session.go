package agent

import (
	"bytes"
	"encoding/json"
	"time"
)

// AgentSession represents a coding session's data. Each agent stores data in
// its native format and only the originating agent can write it back; the
// query methods below understand the JSONL transcripts of Claude Code and
// Gemini CLI (one entry per line) and Gemini's single-JSON transcript.
type AgentSession struct {
	SessionID  string
	AgentName  AgentName
	RepoPath   string
	SessionRef string // Path/reference to session in agent's storage
	StartTime  time.Time

	// NativeData holds the session content in the agent's native format
	// (Claude Code: JSONL bytes; Gemini CLI: JSON or JSONL bytes).
	NativeData []byte

	// Computed fields - populated by the agent when reading.
	ModifiedFiles []string
	NewFiles      []string
	DeletedFiles  []string

	// Entries optionally holds normalized entries.
	Entries []SessionEntry
}

// sessionEntry is the part of a transcript entry the session queries need.
// Claude lines carry uuid/type/message, Gemini records id/type/content.
type sessionEntry struct {
	Type        string `json:"type"`
	UUID        string `json:"uuid"`
	ID          string `json:"id"`
	IsMeta      bool   `json:"isMeta"`
	IsSidechain bool   `json:"isSidechain"`
	Message     struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID string `json:"id"`
	} `json:"toolCalls"`
}

func (e *sessionEntry) key() string {
	if e.UUID != "" {
		return e.UUID
	}
	return e.ID
}

func (e *sessionEntry) content() json.RawMessage {
	if len(e.Message.Content) > 0 {
		return e.Message.Content
	}
	return e.Content
}

func (e *sessionEntry) isUser() bool { return e.Type == "user" || e.Type == "human" }

func (e *sessionEntry) isAssistant() bool { return e.Type == "assistant" || e.Type == "gemini" }

// forEachEntry calls fn for every entry of data with the byte offset just past
// the entry's line (JSONL) or -1 (single JSON). Undecodable lines are skipped.
func forEachEntry(data []byte, fn func(e *sessionEntry, end int) bool) {
	if msgs, ok := geminiMessages(data); ok {
		for _, m := range msgs {
			var e sessionEntry
			if json.Unmarshal(m, &e) == nil && !fn(&e, -1) {
				return
			}
		}
		return
	}
	pos := 0
	for pos < len(data) {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		line := data[pos:]
		if end >= 0 {
			line = data[pos : pos+end]
			next = pos + end + 1
		}
		var e sessionEntry
		if len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &e) == nil {
			if !fn(&e, next) {
				return
			}
		}
		pos = next
	}
}

// geminiMessages returns the messages array of a single-JSON Gemini
// transcript; ok is false for anything else (JSONL included).
func geminiMessages(data []byte) ([]json.RawMessage, bool) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, false
	}
	// A JSONL file has a newline after its first object; a pretty-printed
	// document has "{" alone on its first line. Cheap check first.
	if i := bytes.IndexByte(trimmed, '\n'); i > 1 {
		return nil, false
	}
	obj, err := ParseObject(trimmed)
	if err != nil {
		return nil, false
	}
	raw, ok := obj.Get("messages")
	if !ok {
		return nil, false
	}
	var msgs []json.RawMessage
	if json.Unmarshal(raw, &msgs) != nil {
		return nil, false
	}
	return msgs, true
}

// FindToolResultUUID finds the UUID of the entry containing the tool result
// for the given tool use ID (Claude: the user line with a tool_result block
// whose tool_use_id matches; Gemini: the message whose toolCalls has that id).
// Returns the UUID and true if found.
func (s *AgentSession) FindToolResultUUID(toolUseID string) (string, bool) {
	if toolUseID == "" {
		return "", false
	}
	var found string
	forEachEntry(s.NativeData, func(e *sessionEntry, _ int) bool {
		for _, tc := range e.ToolCalls {
			if tc.ID == toolUseID {
				found = e.key()
				return false
			}
		}
		c := e.content()
		if !e.isUser() || len(c) == 0 || c[0] != '[' || !bytes.Contains(c, []byte(toolUseID)) {
			return true
		}
		var blocks []struct {
			Type      string `json:"type"`
			ToolUseID string `json:"tool_use_id"`
		}
		if json.Unmarshal(c, &blocks) != nil {
			return true
		}
		for _, b := range blocks {
			if b.Type == "tool_result" && b.ToolUseID == toolUseID {
				found = e.key()
				return false
			}
		}
		return true
	})
	return found, found != ""
}

// GetLastAssistantResponse returns the text of the last assistant (Claude
// "assistant", Gemini "gemini") entry that has text, or "".
func (s *AgentSession) GetLastAssistantResponse() string {
	var last string
	forEachEntry(s.NativeData, func(e *sessionEntry, _ int) bool {
		if e.isAssistant() && !e.IsSidechain {
			if t := MessageText(e.content()); t != "" {
				last = t
			}
		}
		return true
	})
	return last
}

// GetLastUserPrompt returns the last human prompt (tool results, meta entries
// and sidechain entries excluded; IDE/system tags stripped), or "".
func (s *AgentSession) GetLastUserPrompt() string {
	var last string
	forEachEntry(s.NativeData, func(e *sessionEntry, _ int) bool {
		if e.isUser() && !e.IsMeta && !e.IsSidechain {
			if t := PromptText(MessageText(e.content())); t != "" {
				last = t
			}
		}
		return true
	})
	return last
}

// TruncateAtUUID returns a new session whose NativeData ends with the entry
// identified by uuid (inclusive). JSONL data is cut byte-for-byte after that
// entry's line; a single-JSON Gemini document is rewritten with its messages
// array cut (other keys kept). If uuid is not found the data is kept whole.
// Entries are cut the same way; computed file lists are not carried over.
func (s *AgentSession) TruncateAtUUID(uuid string) *AgentSession {
	out := *s
	out.ModifiedFiles, out.NewFiles, out.DeletedFiles = nil, nil, nil
	out.NativeData = bytes.Clone(s.NativeData)
	if msgs, ok := geminiMessages(s.NativeData); ok {
		for i, m := range msgs {
			var e sessionEntry
			if json.Unmarshal(m, &e) == nil && e.key() == uuid {
				obj, err := ParseObject(bytes.TrimSpace(s.NativeData))
				if err == nil {
					obj.Set("messages", CompactArray(msgs[:i+1]))
					out.NativeData = obj.Indent("  ")
				}
				break
			}
		}
	} else {
		forEachEntry(s.NativeData, func(e *sessionEntry, end int) bool {
			if e.key() == uuid {
				out.NativeData = bytes.Clone(s.NativeData[:end])
				return false
			}
			return true
		})
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
