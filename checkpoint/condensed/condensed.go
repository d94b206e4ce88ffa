// Package condensed is the condensed transcript of SPEC 1.9, the
// [User], [Assistant] and [Tool] lines `entire explain` shows: how a
// stored transcript's records (JSONL lines, one at a time, or the records
// of a JSON document), read by the agent that wrote it
// (agent.TranscriptReader), become Entries, and the file a session slot
// keeps them in (File) so that the view need not read the transcript.
package condensed

import (
	"bytes"
	"strings"

	"github.com/entirecli/entire/agent"
)

// Role is the speaker of a transcript entry.
type Role = agent.Role

// Roles of transcript entries.
const (
	RoleUser      = agent.RoleUser
	RoleAssistant = agent.RoleAssistant
	RoleTool      = agent.RoleTool
)

// Entry is one line of a condensed transcript.
type Entry struct {
	Role Role `json:"role"`
	// Text is the prompt or assistant text; for RoleTool the tool's most
	// telling argument (agent.Entry.Text), possibly "".
	Text string `json:"text,omitempty"`
	// Tool is the tool name (RoleTool only).
	Tool string `json:"tool,omitempty"`
}

// ParseTranscript returns the condensed entries of a stored transcript that
// a wrote (nil: the agent that recognises it, else the default; see
// agent.ForTranscript) from position start on: for JSONL transcripts
// start counts lines, for a JSON document it counts the agent's document
// records (checkpoint_transcript_start, SPEC 4.3). A start past the end
// gives no entries. Records the agent cannot read are skipped; a document
// that does not parse is an error.
func ParseTranscript(a agent.Agent, content []byte, start int) ([]Entry, error) {
	entries, _, err := ParseCounted(a, content, start)
	return entries, err
}

// ParseCounted is ParseTranscript that also returns the number of lines
// (JSONL) or document records of the whole transcript.
func ParseCounted(a agent.Agent, content []byte, start int) ([]Entry, int, error) {
	if start < 0 {
		start = 0
	}
	if a == nil {
		a = agent.ForTranscript("", content)
	}
	var recs []Record
	n, err := agent.Records(a, content, func(i int, rec agent.Record) {
		if i >= start {
			recs = appendRecord(recs, i, rec)
		}
	})
	if err != nil {
		return nil, 0, err
	}
	return Entries(recs, start), n, nil
}

// Record is what one JSONL transcript record gives the condensed
// transcript: the entries of the record on 0-based line Line, and its
// key (agent.Record.Key), under which a later record replaces it.
type Record struct {
	Line    int     `json:"line"`
	ID      string  `json:"id,omitempty"`
	Entries []Entry `json:"entries,omitempty"`
}

// appendRecord appends the condensed form of rec, read on line idx, to
// out; a record without entries or key adds nothing.
func appendRecord(out []Record, idx int, rec agent.Record) []Record {
	if len(rec.Entries) == 0 && rec.Key == "" {
		return out
	}
	r := Record{Line: idx, ID: rec.Key}
	for _, e := range rec.Entries {
		r.Entries = append(r.Entries, Entry{Role: e.Role, Text: e.Text, Tool: e.Tool})
	}
	return append(out, r)
}

// LineParser turns JSONL transcript lines, fed in order, into Records.
// The zero value starts at line 0, keeps every line, and reads them as
// the agent that recognises the first line fed (else the default agent).
type LineParser struct {
	// Agent is the agent that wrote the transcript; nil: the agent
	// agent.ForTranscript tells from Label and the first line fed.
	Agent agent.Agent
	// Label is the agent type the transcript is stored under (used when
	// Agent is nil).
	Label agent.AgentType
	// Start is the first line (0-based) whose records are kept; earlier
	// lines are counted, not decoded.
	Start int
	// First is the number of the first line fed (the lines stored before
	// it are not fed).
	First int
	n     int
}

// Lines returns the number of the line after the last one fed.
func (p *LineParser) Lines() int { return p.First + p.n }

// agentOf returns the agent that reads the lines when Agent is not set:
// the transcript's first line (idx 0) is told by agent.ForTranscript; a
// later one can only be told by the label (else the default agent).
func (p *LineParser) agentOf(idx int, l []byte) agent.Agent {
	if idx == 0 {
		return agent.ForTranscript(p.Label, l)
	}
	if a, err := agent.GetByAgentType(p.Label); err == nil {
		return a
	}
	return agent.Default()
}

// Line decodes one line (without its newline) and appends its records to
// out. Blank lines and lines before Start give none; lines the agent
// cannot read are skipped.
func (p *LineParser) Line(l []byte, out []Record) []Record {
	idx := p.First + p.n
	p.n++
	if p.Agent == nil && (idx == 0 || idx >= p.Start) {
		p.Agent = p.agentOf(idx, l)
	}
	if idx < p.Start || len(bytes.TrimSpace(l)) == 0 {
		return out
	}
	return appendRecord(out, idx, agent.ReadRecord(p.Agent, l))
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
