package geminicli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/entirecli/entire/agent"
)

var (
	_ agent.TranscriptReader = (*Agent)(nil)
	_ agent.DocumentReader   = (*Agent)(nil)
	_ agent.TranscriptCutter = (*Agent)(nil)
)

// ReadRecord reads one Gemini message (a JSONL record or a message of the
// JSON document): a "user" message gives its prompt, a "gemini" (or the
// API's "model") message its text and tool calls. A JSONL message is keyed
// by its "id": Gemini writes a message again, e.g. with its tool calls,
// and the later record replaces the earlier (FORMATS.md 2.1). The session
// header and $set patches give nothing.
func (a *Agent) ReadRecord(record []byte) agent.Record {
	var m message
	if json.Unmarshal(record, &m) != nil {
		return agent.Record{}
	}
	out := agent.Record{Key: m.ID}
	at := agent.ParseTime(m.Timestamp)
	switch m.Type {
	case "user":
		if t := agent.PromptText(agent.MessageText(m.Content)); t != "" {
			out.Entries = append(out.Entries, agent.Entry{Role: agent.RoleUser, Text: t, ID: m.ID, Time: at})
		}
	case "gemini", "model":
		if t := strings.TrimSpace(agent.MessageText(m.Content)); t != "" {
			out.Entries = append(out.Entries, agent.Entry{Role: agent.RoleAssistant, Text: t, ID: m.ID, Time: at})
		}
		for _, tc := range m.ToolCalls {
			if tc.Name == "" {
				continue
			}
			e := agent.Entry{Role: agent.RoleTool, Tool: tc.Name, Text: ToolDetail(tc.Name, tc.Args), ID: m.ID, Time: at}
			if p := modifiedFile(tc); p != "" {
				e.Files = []string{p}
			}
			out.Entries = append(out.Entries, e)
		}
		if t := m.Tokens; t != nil && len(out.Entries) > 0 {
			out.Entries[0].Tokens = agent.TokenUsage{InputTokens: t.Input, OutputTokens: t.Output, CacheReadTokens: t.Cached, APICallCount: 1}
		}
	}
	return out
}

// modifiedFile returns the file a tool call writes: its file_path, else
// path, else filename; "" for a tool that writes none.
func modifiedFile(tc toolCall) string {
	if !IsFileModificationTool(tc.Name) {
		return ""
	}
	var fa fileArgs
	if json.Unmarshal(tc.Args, &fa) != nil {
		return ""
	}
	for _, p := range []string{fa.FilePath, fa.Path, fa.Filename} {
		if p != "" {
			return p
		}
	}
	return ""
}

// toolArgs holds the arguments ToolDetail looks at.
type toolArgs struct {
	Description string `json:"description"`
	Command     string `json:"command"`
	FilePath    string `json:"file_path"`
	Path        string `json:"path"`
	Pattern     string `json:"pattern"`
	URL         string `json:"url"`
}

// ToolDetail returns the most telling argument of a Gemini tool call with
// the given raw JSON args: read_file its path, web_fetch its URL, any
// other its description, else command, else file_path, else pattern.
// Non-object args give "".
func ToolDetail(name string, args json.RawMessage) string {
	var a toolArgs
	if len(args) == 0 || args[0] != '{' || json.Unmarshal(args, &a) != nil {
		return ""
	}
	switch name {
	case "read_file":
		return firstOf(a.FilePath, a.Path)
	case "web_fetch":
		return a.URL
	}
	return firstOf(a.Description, a.Command, a.FilePath, a.Pattern)
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// DocumentRecords returns the messages of a JSON-document transcript.
func (a *Agent) DocumentRecords(content []byte) ([]json.RawMessage, error) {
	var doc struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(content, &doc); err != nil {
		return nil, fmt.Errorf("parse gemini transcript: %w", err)
	}
	return doc.Messages, nil
}

// keyedMessage is the part of a message the cutter decodes.
type keyedMessage struct {
	ID        string `json:"id"`
	ToolCalls []struct {
		ID string `json:"id"`
	} `json:"toolCalls"`
}

// forEachMessage calls fn with every decodable message of data (the
// document's messages, or the JSONL records) and, for JSONL, the offset
// just past its line (-1 for a document), until fn returns false.
func forEachMessage(data []byte, fn func(m *keyedMessage, end int) bool) {
	if isMessagesDocument(data) {
		msgs, _ := (*Agent)(nil).DocumentRecords(data)
		for _, raw := range msgs {
			var m keyedMessage
			if json.Unmarshal(raw, &m) == nil && !fn(&m, -1) {
				return
			}
		}
		return
	}
	for pos := 0; pos < len(data); {
		line, next := data[pos:], len(data)
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			line, next = data[pos:pos+i], pos+i+1
		}
		var m keyedMessage
		if len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &m) == nil && !fn(&m, next) {
			return
		}
		pos = next
	}
}

// CutAfterEntry cuts a transcript after the message whose "id" is id: a
// JSONL transcript byte for byte after its line, a JSON document
// rewritten with its messages array cut (other keys kept).
func (a *Agent) CutAfterEntry(data []byte, id string) ([]byte, bool) {
	if id == "" {
		return data, false
	}
	if isMessagesDocument(data) {
		obj, err := agent.ParseObject(bytes.TrimSpace(data))
		msgs, derr := a.DocumentRecords(data)
		if err != nil || derr != nil {
			return data, false
		}
		for i, raw := range msgs {
			var m keyedMessage
			if json.Unmarshal(raw, &m) == nil && m.ID == id {
				obj.Set("messages", agent.CompactArray(msgs[:i+1]))
				return obj.Indent("  "), true
			}
		}
		return data, false
	}
	out, found := data, false
	forEachMessage(data, func(m *keyedMessage, end int) bool {
		if m.ID == id {
			out, found = bytes.Clone(data[:end]), true
			return false
		}
		return true
	})
	return out, found
}

// ToolResultEntry returns the "id" of the message whose toolCalls hold
// toolUseID: Gemini keeps a call and its result in one message.
func (a *Agent) ToolResultEntry(data []byte, toolUseID string) (string, bool) {
	var found string
	forEachMessage(data, func(m *keyedMessage, _ int) bool {
		for _, tc := range m.ToolCalls {
			if tc.ID == toolUseID {
				found = m.ID
				return false
			}
		}
		return true
	})
	return found, found != ""
}
