package pi

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/entirecli/entire/agent"
)

// entry is one line of a Pi session file (version 3): the session header
// ({"type":"session","id","cwd",...}) or an entry of the tree, with its
// id and parentId: message, model_change, thinking_level_change,
// compaction, branch_summary, custom, label, session_info.
type entry struct {
	Type      string   `json:"type"`
	ID        string   `json:"id"`
	Timestamp string   `json:"timestamp"`
	Message   *message `json:"message"`
}

// message is a message entry's message: a user prompt, an assistant
// response (text and tool calls, with its usage) or a tool result.
type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Usage   *usage          `json:"usage"`
}

type part struct {
	Type      string   `json:"type"`
	Text      string   `json:"text"`
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Arguments toolArgs `json:"arguments"`
}

// toolArgs holds the arguments of Pi's tools the reader looks at.
type toolArgs struct {
	Path    string `json:"path"`
	Command string `json:"command"`
	Pattern string `json:"pattern"`
}

// usage is an assistant message's token usage; input excludes the
// cached input, which cacheRead and cacheWrite count.
type usage struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead"`
	CacheWrite int `json:"cacheWrite"`
}

// writesPath reports whether a Pi tool writes the file named by its path.
func writesPath(tool string) bool { return tool == "write" || tool == "edit" }

// parts decodes message content: a string or an array of parts.
func parts(raw json.RawMessage) []part {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return []part{{Type: "text", Text: s}}
		}
	}
	var out []part
	_ = json.Unmarshal(raw, &out)
	return out
}

// parsed is what one line gives.
type parsed struct {
	entries []agent.Entry
	usage   *agent.TokenUsage
}

// parseLine decodes one session line. Only message entries give entries:
// a user message is a prompt, an assistant message its text and tool
// calls (and its usage); tool results and the other entry types give
// nothing.
func parseLine(line []byte) parsed {
	var e entry
	if json.Unmarshal(line, &e) != nil || e.Type != "message" || e.Message == nil {
		return parsed{}
	}
	m := e.Message
	at := agent.ParseTime(e.Timestamp)
	var out parsed
	switch m.Role {
	case "user":
		var text []string
		for _, p := range parts(m.Content) {
			if p.Type == "text" {
				text = append(text, p.Text)
			}
		}
		if t := agent.PromptText(strings.Join(text, "\n")); t != "" {
			out.entries = append(out.entries, agent.Entry{Role: agent.RoleUser, Text: t, ID: e.ID, Time: at})
		}
	case "assistant":
		for _, p := range parts(m.Content) {
			switch p.Type {
			case "text":
				if t := strings.TrimSpace(p.Text); t != "" {
					out.entries = append(out.entries, agent.Entry{Role: agent.RoleAssistant, Text: t, ID: e.ID, Time: at})
				}
			case "toolCall":
				if p.Name == "" {
					continue
				}
				en := agent.Entry{Role: agent.RoleTool, Tool: p.Name, ID: p.ID, Time: at}
				for _, s := range []string{p.Arguments.Command, p.Arguments.Path, p.Arguments.Pattern} {
					if s != "" {
						en.Text = s
						break
					}
				}
				if writesPath(p.Name) && p.Arguments.Path != "" {
					en.Files = []string{p.Arguments.Path}
				}
				out.entries = append(out.entries, en)
			}
		}
		if u := m.Usage; u != nil {
			out.usage = &agent.TokenUsage{InputTokens: max(u.Input, 0), OutputTokens: max(u.Output, 0),
				CacheReadTokens: max(u.CacheRead, 0), CacheCreationTokens: max(u.CacheWrite, 0), APICallCount: 1}
		}
	}
	return out
}

// ReadRecord reads one session line.
func (a *Agent) ReadRecord(record []byte) agent.Record {
	return agent.Record{Entries: parseLine(record).entries}
}

// ScanTranscript analyses the complete lines of a session file from
// `from` on, reading only what was appended since an earlier scan. Pi
// appends every entry, on whichever branch of the tree: the lines after a
// turn's start are the entries of that turn.
func (a *Agent) ScanTranscript(path string, from agent.Position) (*agent.Analysis, error) {
	return agent.ScanJSONL(path, from, func(line []byte) (agent.Record, *agent.TokenUsage) {
		p := parseLine(line)
		return agent.Record{Entries: p.entries}, p.usage
	})
}

// header is the first line of a session file.
type header struct {
	Type      string `json:"type"`
	Version   int    `json:"version"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Cwd       string `json:"cwd"`
}

func readHeader(content []byte) (header, bool) {
	first, _, _ := strings.Cut(string(content), "\n")
	var h header
	ok := json.Unmarshal([]byte(first), &h) == nil && h.Type == "session" && h.ID != ""
	return h, ok
}

// RecognizeTranscript reports whether content starts with Pi's session
// header.
func (a *Agent) RecognizeTranscript(content []byte) bool {
	_, ok := readHeader(content)
	return ok
}

// SniffTranscript accepts the first line of a session file: an object
// with a string "type".
func (a *Agent) SniffTranscript(first []byte) error {
	var e entry
	if err := json.Unmarshal(first, &e); err != nil {
		return fmt.Errorf("first line is not a JSON object: %w", err)
	}
	if e.Type == "" {
		return errors.New(`first line has no "type"`)
	}
	return nil
}
