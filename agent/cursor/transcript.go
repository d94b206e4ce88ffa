package cursor

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/entirecli/entire/agent"
)

// line is one line of a Cursor agent transcript: a message with content
// parts. Lines carry no IDs, times or token usage.
type line struct {
	Role    string `json:"role"`
	Message *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type part struct {
	Type  string    `json:"type"`
	Text  string    `json:"text"`
	Name  string    `json:"name"`
	Input toolInput `json:"input"`
}

// toolInput holds the arguments of Cursor's tools the reader looks at.
type toolInput struct {
	Path        string `json:"path"`
	FilePath    string `json:"file_path"`
	TargetFile  string `json:"target_file"`
	Command     string `json:"command"`
	Pattern     string `json:"pattern"`
	Description string `json:"description"`
}

func (in toolInput) file() string {
	for _, p := range []string{in.Path, in.FilePath, in.TargetFile} {
		if p != "" {
			return p
		}
	}
	return ""
}

// writesFile reports whether a tool writes the file its input names.
func writesFile(tool string) bool {
	switch tool {
	case "Write", "StrReplace", "Edit", "MultiEdit", "Delete", "EditNotebook", "ApplyPatch":
		return true
	}
	return false
}

// wrappers are the tags Cursor puts around a person's text.
var wrappers = regexp.MustCompile(`(?s)</?user_query>|<timestamp>.*?</timestamp>`)

// parseLine decodes one transcript line into entries.
func parseLine(raw []byte) []agent.Entry {
	var l line
	if json.Unmarshal(raw, &l) != nil || l.Message == nil {
		return nil
	}
	var parts []part
	var s string
	if json.Unmarshal(l.Message.Content, &s) == nil {
		parts = []part{{Type: "text", Text: s}}
	} else if json.Unmarshal(l.Message.Content, &parts) != nil {
		return nil
	}
	var out []agent.Entry
	switch l.Role {
	case "user":
		var text []string
		for _, p := range parts {
			if p.Type == "text" {
				text = append(text, p.Text)
			}
		}
		if t := agent.PromptText(strings.TrimSpace(wrappers.ReplaceAllString(strings.Join(text, "\n"), ""))); t != "" {
			out = append(out, agent.Entry{Role: agent.RoleUser, Text: t})
		}
	case "assistant":
		for _, p := range parts {
			switch p.Type {
			case "text":
				if t := strings.TrimSpace(p.Text); t != "" {
					out = append(out, agent.Entry{Role: agent.RoleAssistant, Text: t})
				}
			case "tool_use":
				if p.Name == "" {
					continue
				}
				e := agent.Entry{Role: agent.RoleTool, Tool: p.Name}
				for _, d := range []string{p.Input.Description, p.Input.Command, p.Input.file(), p.Input.Pattern} {
					if d != "" {
						e.Text = d
						break
					}
				}
				if writesFile(p.Name) && p.Input.file() != "" {
					e.Files = []string{p.Input.file()}
				}
				out = append(out, e)
			}
		}
	}
	return out
}

// ReadRecord reads one transcript line.
func (a *Agent) ReadRecord(record []byte) agent.Record {
	return agent.Record{Entries: parseLine(record)}
}

// ScanTranscript analyses the complete lines of a transcript from `from`
// on, reading only what was appended since an earlier scan.
func (a *Agent) ScanTranscript(path string, from agent.Position) (*agent.Analysis, error) {
	return agent.ScanJSONL(path, from, func(line []byte) (agent.Record, *agent.TokenUsage) {
		return agent.Record{Entries: parseLine(line)}, nil
	})
}
