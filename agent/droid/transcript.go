package droid

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/entirecli/entire/agent"
)

// line is one line of a droid session file: a session_start header, a
// message, or a bookkeeping record (agent_turn_outcome, ...).
type line struct {
	Type      string   `json:"type"`
	ID        string   `json:"id"`
	Timestamp string   `json:"timestamp"`
	Message   *message `json:"message"`
}

// message is a Claude-shaped message: role and content blocks. droid
// records its hook runs as user messages with "visibility": "user_only"
// and no content, and the context it adds before a prompt as a user
// message whose line id starts with "context-".
type message struct {
	Role       string  `json:"role"`
	Content    []block `json:"content"`
	Visibility string  `json:"visibility"`
}

type block struct {
	Type  string    `json:"type"`
	Text  string    `json:"text"`
	ID    string    `json:"id"`
	Name  string    `json:"name"`
	Input toolInput `json:"input"`
}

// toolInput holds the arguments of droid's tools the reader looks at.
type toolInput struct {
	FilePath string `json:"file_path"`
	Command  string `json:"command"`
	Summary  string `json:"summary"`
	Pattern  string `json:"pattern"`
}

// writesFile reports whether a tool writes the file named by its
// file_path.
func writesFile(tool string) bool {
	switch tool {
	case "Create", "Edit", "MultiEdit", "ApplyPatch":
		return true
	}
	return false
}

// parseLine decodes one session line into entries: the person's prompts,
// the assistant's text and tool calls. Headers, hook records, the context
// droid adds, tool results and lines it cannot decode give nothing. droid
// writes no token usage into the file.
func parseLine(raw []byte) []agent.Entry {
	var l line
	if json.Unmarshal(raw, &l) != nil || l.Type != "message" || l.Message == nil {
		return nil
	}
	m := l.Message
	at := agent.ParseTime(l.Timestamp)
	var out []agent.Entry
	switch m.Role {
	case "user":
		if m.Visibility != "" || strings.HasPrefix(l.ID, "context-") {
			return nil
		}
		var text []string
		for _, b := range m.Content {
			if b.Type == "text" {
				text = append(text, b.Text)
			}
		}
		if t := agent.PromptText(strings.Join(text, "\n")); t != "" {
			out = append(out, agent.Entry{Role: agent.RoleUser, Text: t, ID: l.ID, Time: at})
		}
	case "assistant":
		for _, b := range m.Content {
			switch b.Type {
			case "text":
				if t := strings.TrimSpace(b.Text); t != "" {
					out = append(out, agent.Entry{Role: agent.RoleAssistant, Text: t, ID: l.ID, Time: at})
				}
			case "tool_use":
				if b.Name == "" {
					continue
				}
				e := agent.Entry{Role: agent.RoleTool, Tool: b.Name, ID: b.ID, Time: at}
				for _, s := range []string{b.Input.Summary, b.Input.Command, b.Input.FilePath, b.Input.Pattern} {
					if s != "" {
						e.Text = s
						break
					}
				}
				if writesFile(b.Name) && b.Input.FilePath != "" {
					e.Files = []string{b.Input.FilePath}
				}
				out = append(out, e)
			}
		}
	}
	return out
}

// ReadRecord reads one session line.
func (a *Agent) ReadRecord(record []byte) agent.Record {
	return agent.Record{Entries: parseLine(record)}
}

// ScanTranscript analyses the complete lines of a session file from
// `from` on, reading only what was appended since an earlier scan.
func (a *Agent) ScanTranscript(path string, from agent.Position) (*agent.Analysis, error) {
	return agent.ScanJSONL(path, from, func(line []byte) (agent.Record, *agent.TokenUsage) {
		return agent.Record{Entries: parseLine(line)}, nil
	})
}

// header is the first line of a session file.
type header struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Cwd  string `json:"cwd"`
}

// RecognizeTranscript reports whether content starts with droid's
// session_start header.
func (a *Agent) RecognizeTranscript(content []byte) bool {
	first, _, _ := strings.Cut(string(content), "\n")
	var h header
	return json.Unmarshal([]byte(first), &h) == nil && h.Type == "session_start" && h.ID != ""
}

// SniffTranscript accepts the first line of a session file: an object
// with a string "type".
func (a *Agent) SniffTranscript(first []byte) error {
	var l line
	if err := json.Unmarshal(first, &l); err != nil {
		return fmt.Errorf("first line is not a JSON object: %w", err)
	}
	if l.Type == "" {
		return errors.New(`first line has no "type"`)
	}
	return nil
}
