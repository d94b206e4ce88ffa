package copilotcli

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/entirecli/entire/agent"
)

// eventsFile is the name of a session's events file.
const eventsFile = "events.jsonl"

// event is one line of events.jsonl: {type, data, id, timestamp, parentId}.
type event struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// eventData is the part of an event's data the reader decodes.
type eventData struct {
	Content      string        `json:"content"`
	ToolRequests []toolRequest `json:"toolRequests"`
	Usage        *struct {
		InputTokens      int `json:"inputTokens"`
		OutputTokens     int `json:"outputTokens"`
		CacheReadTokens  int `json:"cacheReadTokens"`
		CacheWriteTokens int `json:"cacheWriteTokens"`
	} `json:"usage"`
}

type toolRequest struct {
	ToolCallID string          `json:"toolCallId"`
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
}

// toolArgs holds the arguments of Copilot's tools the reader looks at.
type toolArgs struct {
	Path        string `json:"path"`
	Command     string `json:"command"`
	Description string `json:"description"`
	Pattern     string `json:"pattern"`
}

// Tools that write the file named by their "path".
func writesPath(tool string) bool { return tool == "create" || tool == "edit" }

type parsed struct {
	entries []agent.Entry
	usage   *agent.TokenUsage
}

// parseEvent decodes one events.jsonl line: a user message (the person's
// prompt), an assistant message (its text and tool requests), or a usage
// record. Hook, tool-execution and session events give nothing.
func parseEvent(line []byte) parsed {
	var e event
	if json.Unmarshal(line, &e) != nil || len(e.Data) == 0 || e.Data[0] != '{' {
		return parsed{}
	}
	switch e.Type {
	case "user.message", "assistant.message", "session.usage_record":
	default:
		return parsed{}
	}
	var d eventData
	if json.Unmarshal(e.Data, &d) != nil {
		return parsed{}
	}
	at := agent.ParseTime(e.Timestamp)
	var out parsed
	switch e.Type {
	case "user.message":
		if t := agent.PromptText(d.Content); t != "" {
			out.entries = append(out.entries, agent.Entry{Role: agent.RoleUser, Text: t, ID: e.ID, Time: at})
		}
	case "assistant.message":
		if t := strings.TrimSpace(d.Content); t != "" {
			out.entries = append(out.entries, agent.Entry{Role: agent.RoleAssistant, Text: t, ID: e.ID, Time: at})
		}
		for _, tr := range d.ToolRequests {
			if tr.Name == "" {
				continue
			}
			en := agent.Entry{Role: agent.RoleTool, Tool: tr.Name, ID: tr.ToolCallID, Time: at}
			var a toolArgs
			if json.Unmarshal(tr.Arguments, &a) == nil {
				for _, s := range []string{a.Description, a.Command, a.Path, a.Pattern} {
					if s != "" {
						en.Text = s
						break
					}
				}
				if writesPath(tr.Name) && a.Path != "" {
					en.Files = []string{a.Path}
				}
			}
			out.entries = append(out.entries, en)
		}
	case "session.usage_record":
		if u := d.Usage; u != nil {
			fresh := u.InputTokens - u.CacheReadTokens - u.CacheWriteTokens
			if fresh < 0 {
				fresh = 0
			}
			out.usage = &agent.TokenUsage{InputTokens: fresh, CacheReadTokens: u.CacheReadTokens, CacheCreationTokens: u.CacheWriteTokens,
				OutputTokens: u.OutputTokens, APICallCount: 1}
		}
	}
	return out
}

// ReadRecord reads one events.jsonl line.
func (a *Agent) ReadRecord(record []byte) agent.Record {
	return agent.Record{Entries: parseEvent(record).entries}
}

// ScanTranscript analyses the complete lines of an events file from `from`
// on, reading only what was appended since an earlier scan.
func (a *Agent) ScanTranscript(path string, from agent.Position) (*agent.Analysis, error) {
	return agent.ScanJSONL(path, from, func(line []byte) (agent.Record, *agent.TokenUsage) {
		p := parseEvent(line)
		return agent.Record{Entries: p.entries}, p.usage
	})
}

// RecognizeTranscript reports whether content starts with a session.start
// event written by Copilot.
func (a *Agent) RecognizeTranscript(content []byte) bool {
	first, _, _ := strings.Cut(string(content), "\n")
	var e struct {
		Type string `json:"type"`
		Data struct {
			Producer string `json:"producer"`
		} `json:"data"`
	}
	return json.Unmarshal([]byte(first), &e) == nil && e.Type == "session.start" && strings.HasPrefix(e.Data.Producer, "copilot")
}

// SniffTranscript accepts the first line of an events file: an object
// with a string "type" and a "data".
func (a *Agent) SniffTranscript(line []byte) error {
	var e event
	if err := json.Unmarshal(line, &e); err != nil {
		return fmt.Errorf("first line is not a JSON object: %w", err)
	}
	if e.Type == "" || len(e.Data) == 0 {
		return errors.New(`first line has no "type" and "data"`)
	}
	return nil
}
