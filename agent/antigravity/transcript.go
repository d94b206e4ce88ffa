package antigravity

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
)

// step is one line of agy's transcript_full.jsonl: a step of the
// conversation. Lines carry no token usage.
type step struct {
	StepIndex int        `json:"step_index"`
	Source    string     `json:"source"`
	Type      string     `json:"type"`
	CreatedAt string     `json:"created_at"`
	Content   string     `json:"content"`
	ToolCalls []toolCall `json:"tool_calls"`
}

type toolCall struct {
	Name string                     `json:"name"`
	Args map[string]json.RawMessage `json:"args"`
}

// arg returns a string argument; agy sometimes encodes an argument's
// value twice ("\"/abs/path\"").
func (c toolCall) arg(name string) string {
	raw, ok := c.Args[name]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	var inner string
	if strings.HasPrefix(s, `"`) && json.Unmarshal([]byte(s), &inner) == nil {
		return inner
	}
	return s
}

// writesFile reports whether a tool writes the file of its TargetFile.
func writesFile(tool string) bool {
	switch tool {
	case "write_to_file", "replace_file_content", "multi_replace_file_content":
		return true
	}
	return false
}

// userRequest is the wrapper of the person's text in a USER_INPUT step.
var userRequest = regexp.MustCompile(`(?s)<USER_REQUEST>\s*(.*?)\s*</USER_REQUEST>`)

// parseLine decodes one step into entries.
func parseLine(raw []byte) []agent.Entry {
	var s step
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	at := agent.ParseTime(s.CreatedAt)
	var out []agent.Entry
	switch s.Type {
	case "USER_INPUT":
		text := s.Content
		if m := userRequest.FindStringSubmatch(text); m != nil {
			text = m[1]
		}
		if t := agent.PromptText(strings.TrimSpace(text)); t != "" {
			out = append(out, agent.Entry{Role: agent.RoleUser, Text: t, Time: at})
		}
		return out
	case "PLANNER_RESPONSE":
		if t := strings.TrimSpace(s.Content); t != "" {
			out = append(out, agent.Entry{Role: agent.RoleAssistant, Text: t, Time: at})
		}
	}
	if s.Source == "USER_EXPLICIT" {
		return out
	}
	for _, c := range s.ToolCalls {
		if c.Name == "" {
			continue
		}
		e := agent.Entry{Role: agent.RoleTool, Tool: c.Name, Time: at}
		for _, k := range []string{"CommandLine", "TargetFile", "AbsolutePath", "DirectoryPath", "Query"} {
			if v := c.arg(k); v != "" {
				e.Text = v
				break
			}
		}
		if f := c.arg("TargetFile"); writesFile(c.Name) && f != "" {
			e.Files = []string{f}
		}
		out = append(out, e)
	}
	return out
}

// ReadRecord reads one step.
func (a *Agent) ReadRecord(record []byte) agent.Record {
	return agent.Record{Entries: parseLine(record)}
}

// ScanTranscript analyses the complete steps of a transcript from `from`
// on, reading only what was appended since an earlier scan.
func (a *Agent) ScanTranscript(path string, from agent.Position) (*agent.Analysis, error) {
	return agent.ScanJSONL(path, from, func(line []byte) (agent.Record, *agent.TokenUsage) {
		return agent.Record{Entries: parseLine(line)}, nil
	})
}

// LastEntryTime returns the created_at of the last step that has one.
func (a *Agent) LastEntryTime(content []byte) time.Time {
	lines := bytes.Split(bytes.TrimSpace(content), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		var s step
		if json.Unmarshal(lines[i], &s) == nil {
			if t := agent.ParseTime(s.CreatedAt); !t.IsZero() {
				return t
			}
		}
	}
	return time.Time{}
}
