// Package condensed is the condensed transcript of SPEC 1.9, the
// [User], [Assistant] and [Tool] lines `entire explain` shows: how a
// stored transcript's lines (JSONL, one record at a time, or a Gemini
// JSON document) become Entries, and the file a session slot keeps them
// in (File) so that the view need not read the transcript.
package condensed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/entirecli/entire/agent"
)

// Role is the speaker of a transcript entry.
type Role string

// Roles of transcript entries.
const (
	RoleUser      Role = "User"
	RoleAssistant Role = "Assistant"
	RoleTool      Role = "Tool"
)

// Entry is one line of a condensed transcript.
type Entry struct {
	Role Role `json:"role"`
	// Text is the prompt or assistant text; for RoleTool the tool's most
	// telling argument (agent.ToolDetail), possibly "".
	Text string `json:"text,omitempty"`
	// Tool is the tool name (RoleTool only).
	Tool string `json:"tool,omitempty"`
}

// skillPreamble starts the user entries Claude Code writes when it loads a
// skill; they are not prompts and are dropped (SPEC 1.9).
const skillPreamble = "Base directory for this skill:"

// block is a Claude message content block, as far as the transcript needs it.
type block struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// toolCall is a Gemini tool call.
type toolCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// line is one JSONL transcript line (Claude Code, or Gemini's JSONL form)
// or one message of Gemini's JSON document.
type line struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	IsMeta      bool   `json:"isMeta"`
	IsSidechain bool   `json:"isSidechain"`
	// IsCompactSummary marks the summary Claude Code writes as a user
	// message when it compacts the conversation; it is not a prompt.
	IsCompactSummary bool `json:"isCompactSummary"`
	Message          *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []toolCall      `json:"toolCalls"`
}

// ParseTranscript returns the condensed entries of a stored transcript from
// position start on: for JSONL transcripts (Claude Code) start counts lines,
// for Gemini's JSON document it counts messages (checkpoint_transcript_start,
// SPEC 4.3). A start past the end gives no entries. Malformed lines are
// skipped; a document that looks like Gemini JSON but does not parse is an
// error.
func ParseTranscript(content []byte, start int) ([]Entry, error) {
	entries, _, err := ParseCounted(content, start)
	return entries, err
}

// ParseCounted is ParseTranscript that also returns the number of lines
// (JSONL) or messages (Gemini's JSON document) of the whole transcript.
func ParseCounted(content []byte, start int) ([]Entry, int, error) {
	if start < 0 {
		start = 0
	}
	var ro roles
	ro.user, ro.assistant = agent.EntryRoles()
	if agent.IsMessagesDocument(content) {
		var doc struct {
			Messages []line `json:"messages"`
		}
		if err := json.Unmarshal(content, &doc); err != nil {
			return nil, 0, fmt.Errorf("parse transcript: %w", err)
		}
		var out []Entry
		for i := range doc.Messages {
			if i >= start {
				out = ro.appendLine(out, &doc.Messages[i])
			}
		}
		return out, len(doc.Messages), nil
	}
	p := LineParser{Start: start, roles: ro}
	var recs []Record
	for len(content) > 0 {
		var l []byte
		if i := bytes.IndexByte(content, '\n'); i >= 0 {
			l, content = content[:i], content[i+1:]
		} else {
			l, content = content, nil
		}
		recs = p.Line(l, recs)
	}
	return Entries(recs, start), p.Lines(), nil
}

// Record is what one JSONL transcript record gives the condensed
// transcript: the entries of the record on 0-based line Line, and its
// top-level "id" (Gemini CLI's JSONL messages), under which a later record
// replaces it.
type Record struct {
	Line    int     `json:"line"`
	ID      string  `json:"id,omitempty"`
	Entries []Entry `json:"entries,omitempty"`
}

// LineParser turns JSONL transcript lines, fed in order, into Records.
// The zero value starts at line 0 and keeps every line.
type LineParser struct {
	// Start is the first line (0-based) whose records are kept; earlier
	// lines are counted, not decoded.
	Start int
	// First is the number of the first line fed (the lines stored before
	// it are not fed).
	First int
	n     int
	roles roles
	init  bool
}

// Lines returns the number of the line after the last one fed.
func (p *LineParser) Lines() int { return p.First + p.n }

// Line decodes one line (without its newline) and appends its records to
// out. Blank lines, tool results and lines before Start give none;
// malformed lines are skipped; objects glued on one line (a lost newline)
// give one record each.
func (p *LineParser) Line(l []byte, out []Record) []Record {
	if !p.init {
		if p.roles.user == nil {
			p.roles.user, p.roles.assistant = agent.EntryRoles()
		}
		p.init = true
	}
	idx := p.First + p.n
	p.n++
	if idx < p.Start || len(bytes.TrimSpace(l)) == 0 || toolResultOnly(l) {
		return out
	}
	var v line
	if json.Unmarshal(l, &v) == nil {
		return p.record(out, idx, &v)
	}
	dec := json.NewDecoder(bytes.NewReader(l))
	for {
		var g line
		if dec.Decode(&g) != nil {
			break
		}
		out = p.record(out, idx, &g)
	}
	return out
}

func (p *LineParser) record(out []Record, idx int, v *line) []Record {
	e := p.roles.appendLine(nil, v)
	if len(e) > 0 || v.ID != "" {
		out = append(out, Record{Line: idx, ID: v.ID, Entries: e})
	}
	return out
}

// Entries returns the condensed entries of the records from line start
// on, in order; a record with the "id" of an earlier one (from start on)
// replaces it in place (FORMATS.md 2.1).
func Entries(recs []Record, start int) []Entry {
	r := records{byID: map[string]int{}}
	for _, rec := range recs {
		if rec.Line >= start {
			r.add(rec)
		}
	}
	return r.entries()
}

// records collects the entries of JSONL records in order. Records with a
// top-level "id" (Gemini CLI's JSONL messages) are upserted: a message
// written again, e.g. once more with its tool calls, replaces its earlier
// record in place (FORMATS.md 2.1).
type records struct {
	groups [][]Entry
	byID   map[string]int
}

func (r *records) add(rec Record) {
	e := rec.Entries
	if rec.ID != "" {
		if i, ok := r.byID[rec.ID]; ok {
			r.groups[i] = e
			return
		}
		r.byID[rec.ID] = len(r.groups)
	}
	if len(e) > 0 || rec.ID != "" {
		r.groups = append(r.groups, e)
	}
}

func (r *records) entries() []Entry {
	var out []Entry
	for _, g := range r.groups {
		out = append(out, g...)
	}
	return out
}

// toolResultOnly reports, without decoding it, whether a JSONL line can
// only be a tool result: it has tool_result blocks and no text block. Such
// lines carry the bulk of a transcript (file contents, command output) and
// give no entry, so they are not decoded.
func toolResultOnly(l []byte) bool {
	return bytes.Contains(l, []byte(`"type":"tool_result"`)) && !bytes.Contains(l, []byte(`"type":"text"`))
}

// contentParts decodes a message content value once: a string, or an array
// of blocks. Malformed content gives nothing.
func contentParts(content json.RawMessage) (text string, blocks []block) {
	if len(content) == 0 {
		return "", nil
	}
	switch content[0] {
	case '"':
		_ = json.Unmarshal(content, &text)
		return text, nil
	case '[':
		if json.Unmarshal(content, &blocks) != nil {
			return "", nil
		}
		var texts []string
		for _, b := range blocks {
			if (b.Type == "text" || b.Type == "") && b.Text != "" {
				texts = append(texts, b.Text)
			}
		}
		return strings.Join(texts, "\n\n"), blocks
	}
	return "", nil
}

// roles are the "type" values of user and assistant entries in the
// transcripts of every registered agent (agent.EntryRoles).
type roles struct {
	user, assistant map[string]bool
}

// appendLine adds the entries of one transcript line or message.
func (ro roles) appendLine(out []Entry, v *line) []Entry {
	if v.IsMeta || v.IsSidechain || v.IsCompactSummary {
		return out
	}
	content := v.Content
	if v.Message != nil && len(v.Message.Content) > 0 {
		content = v.Message.Content
	}
	switch {
	case ro.user[v.Type]:
		raw, _ := contentParts(content)
		text := agent.PromptText(raw)
		if text != "" && !strings.HasPrefix(text, skillPreamble) {
			out = append(out, Entry{Role: RoleUser, Text: text})
		}
	case ro.assistant[v.Type]:
		raw, blocks := contentParts(content)
		if text := strings.TrimSpace(raw); text != "" {
			out = append(out, Entry{Role: RoleAssistant, Text: text})
		}
		for _, b := range blocks {
			if b.Type == "tool_use" && b.Name != "" {
				out = append(out, Entry{Role: RoleTool, Tool: b.Name, Text: agent.ToolDetail(b.Name, b.Input)})
			}
		}
		for _, c := range v.ToolCalls {
			if c.Name != "" {
				out = append(out, Entry{Role: RoleTool, Tool: c.Name, Text: agent.ToolDetail(c.Name, c.Args)})
			}
		}
	}
	return out
}

// Line formats one entry as its condensed line(s): "[User] text",
// "[Assistant] text", "[Tool] Name: detail" (or "[Tool] Name" without a
// detail). Multi-line texts keep their lines.
func (e Entry) Line() string {
	if e.Role == RoleTool {
		if e.Text == "" {
			return "[Tool] " + e.Tool
		}
		return "[Tool] " + e.Tool + ": " + oneLine(e.Text)
	}
	return "[" + string(e.Role) + "] " + strings.TrimSpace(e.Text)
}

// oneLine collapses whitespace runs (newlines included) into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
