package geminicli

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/entirecli/entire/agent"
)

// TranscriptFormat tells the container of a Gemini CLI transcript from its
// start (DetectFormat): a JSON document, which Gemini CLI rewrites whole,
// or JSONL.
func (a *Agent) TranscriptFormat(head []byte) agent.TranscriptFormat {
	if DetectFormat(head) == FormatJSON {
		return agent.TranscriptDocument
	}
	return agent.TranscriptJSONL
}

// RecognizeTranscript reports whether content is a Gemini CLI transcript:
// a JSON object with a non-empty `messages` array, or JSONL whose first
// line is the session header ({sessionId, projectHash, ...}, without
// messages or type). Claude Code writes neither.
func (a *Agent) RecognizeTranscript(content []byte) bool {
	trimmed := bytes.TrimSpace(content)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return false
	}
	if isJSONLHeader(trimmed) {
		return true
	}
	n, ok := messageCount(trimmed)
	return ok && n > 0
}

// isJSONLHeader reports whether the first line of content is a Gemini
// JSONL session header ({sessionId, projectHash, startTime, ...}).
func isJSONLHeader(content []byte) bool {
	first := content
	if i := bytes.IndexByte(content, '\n'); i >= 0 {
		first = content[:i]
	}
	var h struct {
		SessionID   string          `json:"sessionId"`
		ProjectHash string          `json:"projectHash"`
		Messages    json.RawMessage `json:"messages"`
		Type        string          `json:"type"`
	}
	if json.Unmarshal(first, &h) != nil {
		return false
	}
	return h.SessionID != "" && h.ProjectHash != "" && h.Messages == nil && h.Type == ""
}

// messageCount walks the top level of a JSON object and returns the length
// of its `messages` array; ok is false when content is not a JSON object
// or has no messages array.
func messageCount(content []byte) (n int, ok bool) {
	obj, err := agent.ParseObject(content)
	if err != nil {
		return 0, false
	}
	raw, found := obj.Get("messages")
	if !found {
		return 0, false
	}
	var msgs []json.RawMessage
	if json.Unmarshal(raw, &msgs) != nil {
		return 0, false
	}
	return len(msgs), true
}

// LastEntryTime returns the time of the newest entry of a transcript: for
// a JSON document, its last message's timestamp, else the document's
// lastUpdated; for JSONL, the last record with a timestamp
// (agent.LastLineTime). Zero when there is none.
func (a *Agent) LastEntryTime(content []byte) time.Time {
	trimmed := bytes.TrimSpace(content)
	var doc struct {
		LastUpdated string `json:"lastUpdated"`
		Messages    []struct {
			Timestamp string `json:"timestamp"`
		} `json:"messages"`
	}
	if a.RecognizeTranscript(trimmed) && json.Unmarshal(trimmed, &doc) == nil && len(doc.Messages) > 0 {
		if t := agent.ParseTime(doc.Messages[len(doc.Messages)-1].Timestamp); !t.IsZero() {
			return t
		}
		return agent.ParseTime(doc.LastUpdated)
	}
	return agent.LastLineTime(content)
}

// isMessagesDocument reports whether content is one JSON document holding
// a "messages" array (the session file of an agent that rewrites its
// transcript whole, as Gemini CLI does) rather than JSONL: its first line
// is a lone "{", or it is a single line holding an object with a
// "messages" key.
func isMessagesDocument(content []byte) bool {
	content = bytes.TrimLeft(content, " \t\r\n")
	first := content
	if i := bytes.IndexByte(content, '\n'); i >= 0 {
		first = content[:i]
	}
	first = bytes.TrimSpace(first)
	if string(first) == "{" {
		return true
	}
	if len(first) != len(bytes.TrimSpace(content)) {
		return false // more than one line: JSONL
	}
	obj, err := agent.ParseObject(first)
	if err != nil {
		return false
	}
	_, ok := obj.Get("messages")
	return ok
}
