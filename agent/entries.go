package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"
)

// Role is the speaker of a normalised transcript entry.
type Role string

// Roles of normalised transcript entries. The values are those of the
// condensed transcript (SPEC 1.9): "[User]", "[Assistant]", "[Tool]".
const (
	RoleUser      Role = "User"
	RoleAssistant Role = "Assistant"
	RoleTool      Role = "Tool"
)

// Entry is one entry of a transcript as every reader of stored transcripts
// sees it, whatever the agent's format: a human prompt, an assistant text,
// or a tool call.
type Entry struct {
	// Role is the speaker.
	Role Role
	// Text is the prompt (IDE and system tags stripped, see PromptText),
	// the assistant's text, or for a tool call its most telling argument
	// (a description, a command, a path; "" when none).
	Text string
	// Tool is the tool's name as the transcript gives it (RoleTool only).
	Tool string
	// Files are the files a tool call writes, as the transcript names
	// them (absolute or relative to the session's directory).
	Files []string
	// Tokens is the usage the record reports (zero when it reports none).
	Tokens TokenUsage
	// ID identifies the entry in its transcript ("" when the format has
	// no entry IDs).
	ID string
	// Time is when the agent wrote the entry (zero when not recorded).
	Time time.Time
}

// Record is what one transcript record gives: its entries, in order, and
// the key under which a later record replaces it ("" when none does;
// Gemini CLI's JSONL writes a message again under its "id").
type Record struct {
	Key     string
	Entries []Entry
}

// TranscriptReader is implemented by every agent whose stored transcripts
// Entire reads back (explain, the condensed transcript, the web view). It
// is the one place that knows what the agent's transcript records mean;
// readers elsewhere see only Entries.
type TranscriptReader interface {
	// ReadRecord decodes one record: a line of a JSONL transcript, or one
	// of DocumentRecords for a document transcript. Meta records, tool
	// results and records it cannot decode give an empty Record; it never
	// fails.
	ReadRecord(record []byte) Record
}

// DocumentReader is implemented by agents that write TranscriptDocument
// transcripts: it splits a whole document into the records ReadRecord
// decodes, in the order positions count them (see Position.Entries).
type DocumentReader interface {
	DocumentRecords(content []byte) ([]json.RawMessage, error)
}

// ReadRecord returns a's reading of one transcript record: an empty Record
// when a is nil or reads no transcripts.
func ReadRecord(a Agent, record []byte) Record {
	if r, ok := a.(TranscriptReader); ok {
		return r.ReadRecord(record)
	}
	return Record{}
}

// Records returns the records of a whole transcript as a reads it and
// their count: the lines of a JSONL transcript (blank lines counted and
// giving an empty Record), or the document's records.
func Records(a Agent, content []byte, fn func(i int, rec Record)) (int, error) {
	if FormatOf(a, content) == TranscriptDocument {
		d, ok := a.(DocumentReader)
		if !ok {
			return 0, fmt.Errorf("%s transcript: %w", a.Name(), ErrNotTranscript)
		}
		recs, err := d.DocumentRecords(content)
		if err != nil {
			return 0, fmt.Errorf("parse transcript: %w", err)
		}
		for i, r := range recs {
			fn(i, ReadRecord(a, r))
		}
		return len(recs), nil
	}
	n := 0
	for len(content) > 0 {
		var l []byte
		if i := bytes.IndexByte(content, '\n'); i >= 0 {
			l, content = content[:i], content[i+1:]
		} else {
			l, content = content, nil
		}
		var rec Record
		if len(bytes.TrimSpace(l)) > 0 {
			rec = ReadRecord(a, l)
		}
		fn(n, rec)
		n++
	}
	return n, nil
}

// TranscriptCutter is implemented by agents whose transcript entries have
// IDs a task checkpoint names (checkpoint_uuid, SPEC 4.7): a rewind to the
// task cuts the transcript after that entry.
type TranscriptCutter interface {
	// CutAfterEntry returns a copy of data ending with the entry whose ID
	// is id: a JSONL transcript cut byte for byte after its line, a
	// document rewritten without the entries after it. ok is false, and
	// data is returned unchanged, when no entry has that ID.
	CutAfterEntry(data []byte, id string) (out []byte, ok bool)
	// ToolResultEntry returns the ID of the entry that holds the result
	// of the tool call toolUseID.
	ToolResultEntry(data []byte, toolUseID string) (id string, ok bool)
}

// ScanJSONL is a TranscriptScanner's scan of a JSONL transcript whose
// lines read is enough to understand: it reads the complete lines of path
// from `from` on (from its byte offset when it has one, so that its cost
// is that of what was appended since), folds each line's entries into the
// Analysis (prompts, last assistant text, tool uses, the files the tools
// write) with the usage read reports for it, and returns where it
// stopped. A missing file gives an error wrapping fs.ErrNotExist.
func ScanJSONL(path string, from Position, read func(line []byte) (Record, *TokenUsage)) (*Analysis, error) {
	f, err := OpenTranscript(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	from = from.Sanitized()
	an := &Analysis{From: from, To: from}
	skip := 0
	if from.Offset > 0 {
		if _, err := f.Seek(from.Offset, io.SeekStart); err != nil {
			return nil, fmt.Errorf("scan %s: %w", path, err)
		}
	} else {
		skip, an.To.Entries = from.Entries, 0
	}
	consumed, lines, err := ForEachLine(f, func(line []byte) error {
		if skip > 0 {
			skip--
			return nil
		}
		rec, usage := read(line)
		an.Tokens.Add(usage)
		for _, e := range rec.Entries {
			switch e.Role {
			case RoleUser:
				an.Prompts = append(an.Prompts, e.Text)
			case RoleAssistant:
				an.LastAssistant = e.Text
			case RoleTool:
				an.ToolUses = append(an.ToolUses, ToolUse{Name: e.Tool, Detail: e.Text})
				for _, file := range e.Files {
					an.ModifiedFiles = AppendUnique(an.ModifiedFiles, file)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", path, err)
	}
	an.To.Offset = from.Offset + consumed
	an.To.Entries += lines
	return an, nil
}

// ConversationOf returns how a's transcripts read as a conversation: its
// own ConversationReader, else one made of its TranscriptReader's entries
// (prompts, answers and tool calls, without tool results or images) for
// JSONL transcripts; ok is false when a reads neither.
func ConversationOf(a Agent) (ConversationReader, bool) {
	if cr, ok := a.(ConversationReader); ok {
		return cr, true
	}
	if r, ok := a.(TranscriptReader); ok && FormatOf(a, nil) == TranscriptJSONL {
		return entryConversation{r}, true
	}
	return nil, false
}

// entryConversation reads a JSONL transcript as a conversation through a
// TranscriptReader: one message per entry, a tool call as an assistant
// message whose input holds the call's detail and files.
type entryConversation struct{ r TranscriptReader }

// ReadConversation implements ConversationReader.
func (c entryConversation) ReadConversation(r io.Reader, limit int, fn func(Message) bool) error {
	stop := errors.New("stop")
	_, _, err := ForEachLine(r, func(line []byte) error {
		for _, e := range c.r.ReadRecord(line).Entries {
			m := Message{Time: e.Time}
			text, cut := cutString(e.Text, limit)
			m.Cut = cut
			switch e.Role {
			case RoleUser:
				m.Role, m.Prompt, m.Text = "user", true, text
			case RoleAssistant:
				m.Role, m.Text = "assistant", text
			case RoleTool:
				in, _ := json.Marshal(map[string]any{"detail": text, "files": e.Files})
				m.Role = "assistant"
				m.Calls = []ToolCall{{ID: e.ID, Name: e.Tool, Input: in}}
			default:
				continue
			}
			if !e.Tokens.IsZero() {
				u := e.Tokens
				m.Usage = &u
			}
			if !fn(m) {
				return stop
			}
		}
		return nil
	})
	if errors.Is(err, stop) {
		return nil
	}
	return err
}

// cutString returns s cut to at most limit bytes (on a rune boundary) and
// how many bytes were left out.
func cutString(s string, limit int) (string, int) {
	if limit <= 0 || len(s) <= limit {
		return s, 0
	}
	end := limit
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end], len(s) - end
}
