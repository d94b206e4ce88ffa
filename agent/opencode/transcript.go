package opencode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/atomicfile"
)

// entire's copy of an OpenCode session is JSONL: the first line is
// {"info": <the session>}, each further line one element of the export's
// "messages", {"info": <message>, "parts": [...]}, as `opencode export`
// prints them.

// line is one line of the copy.
type line struct {
	Info  json.RawMessage `json:"info"`
	Parts []part          `json:"parts"`
}

// messageInfo is the part of a message's info the reader decodes.
type messageInfo struct {
	ID   string `json:"id"`
	Role string `json:"role"`
	Time struct {
		Created int64 `json:"created"`
	} `json:"time"`
}

type part struct {
	Type      string    `json:"type"`
	Text      string    `json:"text"`
	Synthetic bool      `json:"synthetic"`
	Tool      string    `json:"tool"`
	CallID    string    `json:"callID"`
	State     toolState `json:"state"`
	Tokens    *tokens   `json:"tokens"`
}

type toolState struct {
	Input struct {
		FilePath    string `json:"filePath"`
		Command     string `json:"command"`
		Description string `json:"description"`
		Pattern     string `json:"pattern"`
	} `json:"input"`
}

// tokens is a step-finish part's usage: one model call. input excludes
// the cached input.
type tokens struct {
	Input     int `json:"input"`
	Output    int `json:"output"`
	Reasoning int `json:"reasoning"`
	Cache     struct {
		Read  int `json:"read"`
		Write int `json:"write"`
	} `json:"cache"`
}

// writesFile reports whether an OpenCode tool writes the file named by
// its filePath.
func writesFile(tool string) bool { return tool == "write" || tool == "edit" }

type parsed struct {
	entries []agent.Entry
	usage   *agent.TokenUsage
}

// parseLine decodes one line: a user message's text parts (not the
// synthetic ones OpenCode adds) are its prompt, an assistant message's
// text and tool parts its answer and calls, its step-finish parts its
// model calls' usage. The session line gives nothing.
func parseLine(raw []byte) parsed {
	var l line
	if json.Unmarshal(raw, &l) != nil || len(l.Info) == 0 {
		return parsed{}
	}
	var m messageInfo
	if json.Unmarshal(l.Info, &m) != nil {
		return parsed{}
	}
	var at time.Time
	if m.Time.Created > 0 {
		at = time.UnixMilli(m.Time.Created)
	}
	var out parsed
	switch m.Role {
	case "user":
		var text []string
		for _, p := range l.Parts {
			if p.Type == "text" && !p.Synthetic {
				text = append(text, p.Text)
			}
		}
		if t := agent.PromptText(agent.TrimWrappingQuotes(strings.Join(text, "\n"))); t != "" {
			out.entries = append(out.entries, agent.Entry{Role: agent.RoleUser, Text: t, ID: m.ID, Time: at})
		}
	case "assistant":
		var u agent.TokenUsage
		for _, p := range l.Parts {
			switch p.Type {
			case "text":
				if t := strings.TrimSpace(p.Text); t != "" && !p.Synthetic {
					out.entries = append(out.entries, agent.Entry{Role: agent.RoleAssistant, Text: t, ID: m.ID, Time: at})
				}
			case "tool":
				if p.Tool == "" {
					continue
				}
				in := p.State.Input
				e := agent.Entry{Role: agent.RoleTool, Tool: p.Tool, ID: p.CallID, Time: at}
				for _, s := range []string{in.Description, in.Command, in.FilePath, in.Pattern} {
					if s != "" {
						e.Text = s
						break
					}
				}
				if writesFile(p.Tool) && in.FilePath != "" {
					e.Files = []string{in.FilePath}
				}
				out.entries = append(out.entries, e)
			case "step-finish":
				if t := p.Tokens; t != nil {
					u.InputTokens += max(t.Input, 0)
					u.OutputTokens += max(t.Output, 0) + max(t.Reasoning, 0)
					u.CacheReadTokens += max(t.Cache.Read, 0)
					u.CacheCreationTokens += max(t.Cache.Write, 0)
					u.APICallCount++
				}
			}
		}
		if u.APICallCount > 0 {
			out.usage = &u
		}
	}
	return out
}

// ReadRecord reads one line of the copy.
func (a *Agent) ReadRecord(record []byte) agent.Record {
	return agent.Record{Entries: parseLine(record).entries}
}

// ScanTranscript analyses the complete lines of the copy from line
// from.Entries on. Each turn end rewrites the copy, one line per message
// in the session's order, so the lines before a turn's start are the
// same messages; but OpenCode updates a message after its turn (a
// prompt's summary of the diffs), so their bytes may not be: the scan
// counts lines from the start instead of seeking to from.Offset. The copy
// is rewritten whole at each turn end anyway (OpenCode keeps no
// append-only transcript), so this reads what that wrote.
func (a *Agent) ScanTranscript(path string, from agent.Position) (*agent.Analysis, error) {
	from.Offset = 0
	return agent.ScanJSONL(path, from, func(line []byte) (agent.Record, *agent.TokenUsage) {
		p := parseLine(line)
		return agent.Record{Entries: p.entries}, p.usage
	})
}

// sessionInfo is the session line's info.
type sessionInfo struct {
	ID        string `json:"id"`
	Directory string `json:"directory"`
}

// readSessionLine reads the copy's first line.
func readSessionLine(content []byte) (sessionInfo, bool) {
	first, _, _ := bytes.Cut(content, []byte("\n"))
	var l line
	var s sessionInfo
	if json.Unmarshal(first, &l) != nil || len(l.Parts) > 0 || json.Unmarshal(l.Info, &s) != nil {
		return s, false
	}
	return s, strings.HasPrefix(s.ID, "ses_")
}

// RecognizeTranscript reports whether content is entire's copy of an
// OpenCode session: its first line the session's info.
func (a *Agent) RecognizeTranscript(content []byte) bool {
	_, ok := readSessionLine(content)
	return ok
}

// SniffTranscript accepts the copy's first line: an object with an
// "info".
func (a *Agent) SniffTranscript(first []byte) error {
	var l line
	if err := json.Unmarshal(first, &l); err != nil {
		return fmt.Errorf("first line is not a JSON object: %w", err)
	}
	if len(l.Info) == 0 {
		return errors.New(`first line has no "info"`)
	}
	return nil
}

// writeTranscript writes the copy of a session (its info and messages as
// the export gives them) to path, atomically: one line per message, so
// that the lines of earlier turns stay as they were.
func writeTranscript(path string, info json.RawMessage, messages []json.RawMessage) error {
	var b bytes.Buffer
	if err := writeLine(&b, map[string]json.RawMessage{"info": info}); err != nil {
		return err
	}
	for _, m := range messages {
		if err := writeLine(&b, m); err != nil {
			return err
		}
	}
	if err := atomicfile.Write(path, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("write the session's transcript: %w", err)
	}
	return nil
}

// writeLine appends v as one compact JSON line.
func writeLine(b *bytes.Buffer, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode the session's transcript: %w", err)
	}
	var c bytes.Buffer
	if err := json.Compact(&c, raw); err != nil {
		return fmt.Errorf("encode the session's transcript: %w", err)
	}
	b.Write(c.Bytes())
	b.WriteByte('\n')
	return nil
}

// exportDocument reassembles the copy into `opencode export`'s document,
// {"info": ..., "messages": [...]}, which `opencode import` reads.
func exportDocument(content []byte) ([]byte, error) {
	lines := bytes.Split(bytes.TrimRight(content, "\n"), []byte("\n"))
	if len(lines) == 0 {
		return nil, errors.New("empty transcript")
	}
	var head line
	if err := json.Unmarshal(lines[0], &head); err != nil || len(head.Info) == 0 {
		return nil, errors.New("the transcript's first line is not the session")
	}
	msgs := make([]json.RawMessage, 0, len(lines)-1)
	for _, l := range lines[1:] {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if !json.Valid(l) {
			return nil, errors.New("the transcript has a line that is not JSON")
		}
		msgs = append(msgs, json.RawMessage(l))
	}
	return json.Marshal(map[string]any{"info": head.Info, "messages": msgs})
}

// LastEntryTime returns the creation time of the copy's last message
// (OpenCode keeps times as Unix milliseconds in info.time.created); zero
// when it has none.
func (a *Agent) LastEntryTime(content []byte) time.Time {
	lines := bytes.Split(bytes.TrimSpace(content), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		var l line
		var m messageInfo
		if json.Unmarshal(lines[i], &l) == nil && json.Unmarshal(l.Info, &m) == nil && m.Time.Created > 0 {
			return time.UnixMilli(m.Time.Created).UTC()
		}
	}
	return time.Time{}
}
