package geminicli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/entirecli/entire/agent"
)

// Format is a Gemini transcript container.
type Format int

// Transcript containers (FORMATS.md 2.1). Detection looks at content, never
// at the file name: Entire stored single-JSON transcripts as full.jsonl.
const (
	// FormatJSON is one JSON document {sessionId, ..., messages[]},
	// rewritten whole on every update.
	FormatJSON Format = iota
	// FormatJSONL is a header line, then message records (a message id may
	// repeat: the last record wins) and {"$set": ...} patch records.
	FormatJSONL
)

// DetectFormat tells the container of transcript content from its first
// line: "{" alone, or one complete object with a `messages` key, is
// FormatJSON; anything else FormatJSONL.
func DetectFormat(content []byte) Format {
	if isMessagesDocument(content) {
		return FormatJSON
	}
	return FormatJSONL
}

// message is the part of a Gemini message the analysis needs.
type message struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []toolCall      `json:"toolCalls"`
	Tokens    *tokens         `json:"tokens"`
	Set       json.RawMessage `json:"$set"`
}

type toolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type tokens struct {
	Input    int `json:"input"`
	Output   int `json:"output"`
	Cached   int `json:"cached"`
	Thoughts int `json:"thoughts"`
	Tool     int `json:"tool"`
	Total    int `json:"total"`
}

type fileArgs struct {
	FilePath string `json:"file_path"`
	Path     string `json:"path"`
	Filename string `json:"filename"`
}

// IsFileModificationTool reports whether a Gemini tool writes the file named
// by args.file_path (else path, else filename).
func IsFileModificationTool(name string) bool {
	switch name {
	case "write_file", "replace", "edit_file", "save_file":
		return true
	}
	return false
}

// analyze adds msgs, in order, to an and returns their invoke_agent calls.
func analyze(an *agent.Analysis, msgs []*message) []delegationCall {
	var calls []delegationCall
	for _, m := range msgs {
		switch m.Type {
		case "user":
			if t := agent.PromptText(agent.MessageText(m.Content)); t != "" {
				an.Prompts = append(an.Prompts, t)
			}
		case "gemini":
			if t := agent.MessageText(m.Content); t != "" {
				an.LastAssistant = t
			}
			for _, tc := range m.ToolCalls {
				an.ToolUses = append(an.ToolUses, agent.ToolUse{Name: tc.Name, Detail: ToolDetail(tc.Name, tc.Args)})
				if tc.Name == DelegationTool {
					var d struct {
						Prompt string `json:"prompt"`
					}
					if json.Unmarshal(tc.Args, &d) == nil {
						at, _ := time.Parse(time.RFC3339Nano, m.Timestamp)
						calls = append(calls, delegationCall{prompt: d.Prompt, at: at})
					}
				}
				if IsFileModificationTool(tc.Name) {
					var fa fileArgs
					if json.Unmarshal(tc.Args, &fa) == nil {
						p := fa.FilePath
						if p == "" {
							p = fa.Path
						}
						if p == "" {
							p = fa.Filename
						}
						an.ModifiedFiles = agent.AppendUnique(an.ModifiedFiles, p)
					}
				}
			}
			if t := m.Tokens; t != nil && (t.Input != 0 || t.Output != 0 || t.Cached != 0 || t.Total != 0) {
				an.Tokens.InputTokens += t.Input
				an.Tokens.OutputTokens += t.Output
				an.Tokens.CacheReadTokens += t.Cached
				an.Tokens.APICallCount++
			}
		}
	}
	return calls
}

// documentMessages parses a single-JSON transcript.
func documentMessages(content []byte) ([]*message, error) {
	var doc struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(content, &doc); err != nil {
		return nil, fmt.Errorf("parse gemini transcript: %w", err)
	}
	msgs := make([]*message, 0, len(doc.Messages))
	for _, raw := range doc.Messages {
		m := &message{}
		if json.Unmarshal(raw, m) != nil {
			m = &message{} // a malformed message still counts as a position
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// analyzeDocument analyses a single-JSON transcript from message index
// from.Entries (restarting at 0 if the document is now shorter).
func analyzeDocument(content []byte, from agent.Position) (*agent.Analysis, []delegationCall, error) {
	from = from.Sanitized()
	msgs, err := documentMessages(content)
	if err != nil {
		return nil, nil, err
	}
	if from.Entries > len(msgs) {
		from = agent.Position{}
	}
	an := &agent.Analysis{From: from}
	calls := analyze(an, msgs[from.Entries:])
	an.To = agent.Position{Entries: len(msgs)}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].ID != "" {
			an.To.LastID = msgs[i].ID
			break
		}
	}
	return an, calls, nil
}

// jsonlScan collects the message records of a JSONL transcript; a repeated
// id replaces the earlier record in place (last record wins).
type jsonlScan struct {
	order []*message
	byID  map[string]int
	last  string
}

func (s *jsonlScan) line(b []byte) {
	messageRecords(b, func(m *message) {
		s.last = m.ID
		if i, ok := s.byID[m.ID]; ok {
			s.order[i] = m
			return
		}
		s.byID[m.ID] = len(s.order)
		s.order = append(s.order, m)
	})
}

// opensTurn reports whether a line holds a user message not seen before
// with a prompt in it.
func (s *jsonlScan) opensTurn(b []byte) bool {
	if !bytes.Contains(b, []byte(`"user"`)) {
		return false
	}
	found := false
	messageRecords(b, func(m *message) {
		if _, seen := s.byID[m.ID]; !seen && m.Type == "user" && agent.PromptText(agent.MessageText(m.Content)) != "" {
			found = true
		}
	})
	return found
}

// errTurnEnded stops a scan at the next turn's first prompt (ScanTurn).
var errTurnEnded = errors.New("the next turn begins")

// messageRecords calls fn for each message record of one JSONL line (glued
// objects are decoded one by one); $set patches, the header and records
// without id or type are skipped.
func messageRecords(b []byte, fn func(*message)) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		m := &message{}
		if err := dec.Decode(m); err != nil {
			return
		}
		if m.Set != nil || m.ID == "" || m.Type == "" {
			continue // $set patch, header or unknown record
		}
		fn(m)
	}
}

// scanJSONL scans JSONL from r, whose first byte is at from.Offset; with
// after >= 0 it ends before the first line at that offset or later that
// opens a new user message (see agent.TurnScanner).
func scanJSONL(r io.Reader, from agent.Position, skip int, after int64) (*agent.Analysis, []delegationCall, error) {
	s := &jsonlScan{byID: map[string]int{}}
	seen := 0
	consumed, lines, err := agent.ForEachBriefLineAt(r, func(line []byte, start int64) error {
		seen++
		if seen <= skip {
			return nil
		}
		if after >= 0 && from.Offset+start >= after && s.opensTurn(line) {
			return errTurnEnded
		}
		s.line(line)
		return nil
	})
	if err != nil && !errors.Is(err, errTurnEnded) {
		return nil, nil, err
	}
	an := &agent.Analysis{From: from}
	calls := analyze(an, s.order)
	an.To = agent.Position{Entries: from.Entries + lines, Offset: from.Offset + consumed, LastID: from.LastID}
	if skip > 0 {
		an.To.Entries = lines
	}
	if s.last != "" {
		an.To.LastID = s.last
	}
	return an, calls, nil
}

// ScanTranscript analyses a Gemini transcript from `from` (see
// agent.TranscriptScanner). The container is detected from the content. A
// single-JSON transcript is read whole (Positions count messages, Offset is
// 0); a JSONL transcript is streamed from from.Offset (Positions count lines)
// and a trailing line without newline is left for the next scan.
//
// Token usage follows SPEC 4.4: per gemini message with non-zero tokens,
// input += input, output += output, cache_read += cached, one API call.
// SubagentIDs are the subagents the scope's invoke_agent calls started,
// found beside the transcript (see FindSubagent).
func (a *Agent) ScanTranscript(path string, from agent.Position) (*agent.Analysis, error) {
	return a.ScanTurn(path, from, -1)
}

// ScanTurn is ScanTranscript ending, in a JSONL transcript, before the
// first new user message with a prompt that starts at byte offset after
// or later (see agent.TurnScanner); a single-JSON transcript is analysed
// whole.
func (a *Agent) ScanTurn(path string, from agent.Position, after int64) (*agent.Analysis, error) {
	an, calls, err := scanFile(path, from, after)
	if err != nil {
		return nil, err
	}
	an.SubagentIDs = subagentIDs(path, calls)
	return an, nil
}

// scanFile is ScanTurn without the subagent lookup.
func scanFile(path string, from agent.Position, after int64) (*agent.Analysis, []delegationCall, error) {
	from = from.Sanitized()
	f, err := agent.OpenTranscript(path)
	if err != nil {
		return nil, nil, fmt.Errorf("scan transcript: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(64 << 10)
	wholeFile := len(head) < 64<<10
	if wholeFile || bytes.IndexByte(head, '\n') < 0 || DetectFormat(head) == FormatJSON {
		// Single JSON (or a first line too long to judge from the head):
		// this container has to be read whole anyway, from the file
		// itself (its size is known: see agent.ReadAtMost).
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, nil, fmt.Errorf("scan transcript %s: %w", path, err)
		}
		content, tooLarge, err := agent.ReadAtMost(f, agent.MaxWholeTranscript)
		if err != nil {
			return nil, nil, fmt.Errorf("scan transcript %s: %w", path, err)
		}
		if tooLarge {
			return nil, nil, fmt.Errorf("scan transcript: %w: %s is larger than %d MiB", agent.ErrNotTranscript, path, agent.MaxWholeTranscript>>20)
		}
		if DetectFormat(content) == FormatJSON {
			an, calls, err := analyzeDocument(content, agent.Position{Entries: from.Entries})
			if err != nil {
				return nil, nil, fmt.Errorf("scan transcript %s: %w", path, err)
			}
			return an, calls, nil
		}
		if !agent.PositionHolds(bytes.NewReader(content), int64(len(content)), from) {
			from = agent.Position{}
		}
		skip := 0
		if from.Offset == 0 {
			skip = from.Entries
		}
		return scanJSONL(bytes.NewReader(content[from.Offset:]), from, skip, after)
	}
	skip := 0
	var r io.Reader = br
	if from.Offset > 0 {
		st, err := f.Stat()
		if err != nil {
			return nil, nil, fmt.Errorf("scan transcript: %w", err)
		}
		if !agent.PositionHolds(f, st.Size(), from) {
			from = agent.Position{}
		} else {
			if _, err := f.Seek(from.Offset, io.SeekStart); err != nil {
				return nil, nil, fmt.Errorf("scan transcript %s: %w", path, err)
			}
			r = f
		}
	} else if from.Entries > 0 {
		skip = from.Entries
	}
	an, calls, err := scanJSONL(r, from, skip, after)
	if err != nil {
		return nil, nil, fmt.Errorf("scan transcript %s: %w", path, err)
	}
	return an, calls, nil
}

// AnalyzeTranscript analyses in-memory transcript content (either container)
// from its start. A JSONL last line without newline is included.
func AnalyzeTranscript(content []byte) (*agent.Analysis, error) {
	if DetectFormat(content) == FormatJSON {
		an, _, err := analyzeDocument(content, agent.Position{})
		return an, err
	}
	var r io.Reader = bytes.NewReader(content)
	if len(content) > 0 && content[len(content)-1] != '\n' {
		r = io.MultiReader(r, bytes.NewReader([]byte("\n")))
	}
	an, _, err := scanJSONL(r, agent.Position{}, 0, -1)
	return an, err
}

// GetTranscriptPosition returns the message count (single JSON) or line
// count (JSONL) of the transcript; 0 if it does not exist.
func (a *Agent) GetTranscriptPosition(path string) (int, error) {
	an, err := a.ScanTranscript(path, agent.Position{})
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return an.To.Entries, nil
}

// ExtractModifiedFilesFromOffset returns the files modified after position
// startOffset and the current position.
func (a *Agent) ExtractModifiedFilesFromOffset(path string, startOffset int) ([]string, int, error) {
	an, err := a.ScanTranscript(path, agent.Position{Entries: startOffset})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	return an.ModifiedFiles, an.To.Entries, nil
}
