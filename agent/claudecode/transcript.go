package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"

	"github.com/entirecli/entire/agent"
)

// entry is the part of a transcript line the scanner decodes. Everything else
// (tool result bodies, snapshots, progress output) is skipped by the decoder
// without being kept.
type entry struct {
	Type             string        `json:"type"`
	UUID             string        `json:"uuid"`
	IsMeta           bool          `json:"isMeta"`
	IsSidechain      bool          `json:"isSidechain"`
	IsCompactSummary bool          `json:"isCompactSummary"`
	RequestID        string        `json:"requestId"`
	Message          message       `json:"message"`
	ToolUseResult    agentRef      `json:"toolUseResult"`
	Data             *progressData `json:"data"`
}

type message struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   *usage          `json:"usage"`
}

type usage struct {
	InputTokens         int `json:"input_tokens"`
	CacheCreationTokens int `json:"cache_creation_input_tokens"`
	CacheReadTokens     int `json:"cache_read_input_tokens"`
	OutputTokens        int `json:"output_tokens"`
}

// progressData is a 2.1 `progress` entry; agent_progress carries a subagent
// message whose tool calls we need for files written by subagents.
type progressData struct {
	Type    string `json:"type"`
	AgentID string `json:"agentId"`
	Message struct {
		Type    string `json:"type"`
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	} `json:"message"`
}

// agentRef decodes only `agentId` and `status` from a toolUseResult, which
// may also be a string or an array; anything but an object with agentId
// yields "".
type agentRef struct{ AgentID, Status string }

var agentIDKey = []byte(`"agentId"`)

// UnmarshalJSON implements json.Unmarshaler; it never fails.
func (r *agentRef) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '{' || !bytes.Contains(b, agentIDKey) {
		return nil
	}
	var v struct {
		AgentID string `json:"agentId"`
		Status  string `json:"status"`
	}
	if json.Unmarshal(b, &v) == nil {
		r.AgentID, r.Status = v.AgentID, v.Status
	}
	return nil
}

// block is one message content block.
type block struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// fileInput holds the path arguments of file-writing tools.
type fileInput struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
}

// IsFileModificationTool reports whether a Claude Code tool writes the file
// named by its file_path/notebook_path input.
func IsFileModificationTool(name string) bool {
	switch name {
	case "Write", "Edit", "MultiEdit", "NotebookEdit", "mcp__acp__Write", "mcp__acp__Edit":
		return true
	}
	return false
}

// agentIDTextRe finds the "agentId: <id>" marker in Task result text.
var agentIDTextRe = regexp.MustCompile(`agentId: ([A-Za-z0-9]+)`)

// taskIDRe finds the subagent a <task-notification> reports on (its
// task-id is the subagent's agent ID).
var taskIDRe = regexp.MustCompile(`<task-id>([A-Za-z0-9]+)</task-id>`)

// asyncLaunched is how the Agent tool's result starts when the subagent
// runs on in the background.
var asyncLaunched = []byte("Async agent launched")

// scanner accumulates one scan.
type scanner struct {
	a         agent.Analysis
	calls     map[string]int // message key -> index into usages
	usages    []callUsage
	subCalls  map[string]int
	subUsages []callUsage
	entry     entry
	blocks    []block
}

type callUsage struct{ u usage }

func newScanner(from agent.Position) *scanner {
	s := &scanner{calls: map[string]int{}, subCalls: map[string]int{}}
	s.a.From = from
	s.a.To = from
	return s
}

// line processes one complete line.
func (s *scanner) line(b []byte) {
	decodeEntries(b, &s.entry, s.process)
}

// opensTurn reports whether a line holds a human prompt. Only lines that
// may (a user entry without a tool result) are decoded for it.
func (s *scanner) opensTurn(b []byte) bool {
	if !bytes.Contains(b, []byte(`"user"`)) && !bytes.Contains(b, []byte(`"human"`)) {
		return false
	}
	found := false
	decodeEntries(b, &s.entry, func(e *entry) {
		found = found || promptOf(e) != ""
	})
	return found
}

// decodeEntries decodes the entries of one line into e and calls fn for
// each. Glued objects ({...}{...}) are decoded one by one; undecodable input
// is skipped.
func decodeEntries(b []byte, e *entry, fn func(*entry)) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return
	}
	*e = entry{}
	if err := json.Unmarshal(b, e); err == nil {
		fn(e)
		return
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		*e = entry{}
		if err := dec.Decode(e); err != nil {
			return
		}
		fn(e)
	}
}

func (s *scanner) process(e *entry) {
	if e.UUID != "" {
		s.a.To.LastID = e.UUID
	}
	switch e.Type {
	case "assistant":
		s.assistant(e)
	case "user", "human":
		s.user(e)
	case "progress":
		if e.Data != nil && e.Data.Type == "agent_progress" && e.Data.Message.Type == "assistant" {
			s.toolBlocks(e.Data.Message.Message.Content, true)
		}
	}
}

func (s *scanner) parseBlocks(content json.RawMessage) []block {
	s.blocks = s.blocks[:0]
	if len(content) == 0 || content[0] != '[' {
		return nil
	}
	if json.Unmarshal(content, &s.blocks) != nil {
		return nil
	}
	return s.blocks
}

// toolBlocks records file writes (and, for the main chain, tool uses and the
// last text) of an assistant content array.
func (s *scanner) toolBlocks(content json.RawMessage, sidechain bool) {
	for _, b := range s.parseBlocks(content) {
		switch b.Type {
		case "tool_use":
			if !sidechain {
				s.a.ToolUses = append(s.a.ToolUses, agent.ToolUse{Name: b.Name, Detail: ToolDetail(b.Name, b.Input)})
			}
			if IsFileModificationTool(b.Name) {
				var in fileInput
				if json.Unmarshal(b.Input, &in) == nil {
					p := in.FilePath
					if p == "" {
						p = in.NotebookPath
					}
					s.a.ModifiedFiles = agent.AppendUnique(s.a.ModifiedFiles, p)
				}
			}
		case "text":
			if !sidechain && b.Text != "" {
				s.a.LastAssistant = b.Text
			}
		}
	}
}

func (s *scanner) assistant(e *entry) {
	s.toolBlocks(e.Message.Content, e.IsSidechain)
	if e.Message.Usage == nil || e.Message.Model == "<synthetic>" {
		return
	}
	key := e.Message.ID + "\x00" + e.RequestID
	calls, usages := s.calls, &s.usages
	if e.IsSidechain {
		calls, usages = s.subCalls, &s.subUsages
	}
	if e.Message.ID == "" {
		key = fmt.Sprintf("line-%d", len(*usages))
	}
	if i, ok := calls[key]; ok {
		if e.Message.Usage.OutputTokens > (*usages)[i].u.OutputTokens {
			(*usages)[i].u = *e.Message.Usage
		}
		return
	}
	calls[key] = len(*usages)
	*usages = append(*usages, callUsage{*e.Message.Usage})
}

// user records the subagents a user entry reports finished: a subagent
// tool's result, or, for a subagent launched in the background (whose
// result only says it started), the <task-notification> Claude Code
// submits when it stops. Its usage is read when it is complete.
func (s *scanner) user(e *entry) {
	switch {
	case e.ToolUseResult.AgentID != "":
		if e.ToolUseResult.Status != "async_launched" {
			s.a.SubagentIDs = agent.AppendUnique(s.a.SubagentIDs, e.ToolUseResult.AgentID)
		}
	case len(e.Message.Content) > 0 && bytes.Contains(e.Message.Content, []byte("agentId: ")) && !bytes.Contains(e.Message.Content, asyncLaunched):
		for _, m := range agentIDTextRe.FindAllSubmatch(e.Message.Content, -1) {
			s.a.SubagentIDs = agent.AppendUnique(s.a.SubagentIDs, string(m[1]))
		}
	}
	if len(e.Message.Content) > 0 && bytes.Contains(e.Message.Content, []byte("<task-notification>")) {
		for _, m := range taskIDRe.FindAllSubmatch(e.Message.Content, -1) {
			s.a.SubagentIDs = agent.AppendUnique(s.a.SubagentIDs, string(m[1]))
		}
	}
	if t := promptOf(e); t != "" {
		s.a.Prompts = append(s.a.Prompts, t)
	}
}

// promptOf returns the human prompt an entry is, "" for any other entry
// (tool results, meta and sidechain entries, compaction summaries).
func promptOf(e *entry) string {
	if e.Type != "user" && e.Type != "human" || e.IsMeta || e.IsSidechain || e.IsCompactSummary {
		return ""
	}
	return agent.PromptText(agent.MessageText(e.Message.Content))
}

// errTurnEnded stops a scan at the next turn's first prompt (ScanTurn).
var errTurnEnded = errors.New("the next turn begins")

func sumUsage(calls []callUsage) agent.TokenUsage {
	var t agent.TokenUsage
	for _, c := range calls {
		t.InputTokens += c.u.InputTokens
		t.CacheCreationTokens += c.u.CacheCreationTokens
		t.CacheReadTokens += c.u.CacheReadTokens
		t.OutputTokens += c.u.OutputTokens
	}
	t.APICallCount = len(calls)
	return t
}

func (s *scanner) finish() *agent.Analysis {
	s.a.Tokens = sumUsage(s.usages)
	if len(s.subUsages) > 0 {
		sub := sumUsage(s.subUsages)
		s.a.Tokens.SubagentTokens = &sub
	}
	return &s.a
}

// scanReader scans r, whose first byte is at from.Offset in the transcript.
// When skip > 0 that many complete lines are counted but not analysed.
// With after >= 0 the scan ends before the first prompt line that starts
// at that offset of the transcript or later (see agent.TurnScanner).
func scanReader(r io.Reader, from agent.Position, skip int, after int64) (*agent.Analysis, error) {
	s := newScanner(from)
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
		return nil, err
	}
	a := s.finish()
	a.To.Offset = from.Offset + consumed
	a.To.Entries = from.Entries + lines
	if skip > 0 {
		a.To.Entries = lines
	}
	return a, nil
}

// ScanTranscript analyses a Claude Code JSONL transcript from `from` (see
// agent.TranscriptScanner). With from.Offset > 0 it seeks there and reads only
// the rest of the file; with Offset 0 and Entries > 0 it skips that many
// lines. If the file no longer holds from (agent.PositionHolds: it was
// rewritten, e.g. by a rewind, and may have grown past from again), the
// scan restarts from the beginning and From is the zero Position. A
// trailing line without a newline is left for the next scan.
//
// Scope rules: prompts, tool uses, the last assistant text and Tokens come
// from the main chain only; subagent activity (1.0 inline sidechains, 2.1
// agent_progress entries) contributes to ModifiedFiles, and inline sidechain
// usage goes to Tokens.SubagentTokens. API responses split over several
// lines are counted once per (message.id, requestId) with the largest
// output_tokens; synthetic error replies are not API calls.
func (a *Agent) ScanTranscript(path string, from agent.Position) (*agent.Analysis, error) {
	return scanFile(path, from, -1)
}

// ScanTurn is ScanTranscript ending before the first prompt that starts at
// byte offset after or later (see agent.TurnScanner). Claude Code writes
// the next prompt before it runs the next UserPromptSubmit hook, and the
// turn's last lines (the final answer it flushes late, the Stop hook's
// summary) after the Stop hook started.
func (a *Agent) ScanTurn(path string, from agent.Position, after int64) (*agent.Analysis, error) {
	return scanFile(path, from, after)
}

// scanFile is ScanTranscript; with after >= 0, ScanTurn.
func scanFile(path string, from agent.Position, after int64) (*agent.Analysis, error) {
	from = from.Sanitized()
	f, err := agent.OpenTranscript(path)
	if err != nil {
		return nil, fmt.Errorf("scan transcript: %w", err)
	}
	defer f.Close()
	skip := 0
	if from.Offset > 0 {
		st, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("scan transcript: %w", err)
		}
		if !agent.PositionHolds(f, st.Size(), from) {
			from = agent.Position{}
		} else if _, err := f.Seek(from.Offset, io.SeekStart); err != nil {
			return nil, fmt.Errorf("scan transcript %s: %w", path, err)
		}
	} else if from.Entries > 0 {
		skip = from.Entries
	}
	an, err := scanReader(f, from, skip, after)
	if err != nil {
		return nil, fmt.Errorf("scan transcript %s: %w", path, err)
	}
	return an, nil
}

// AnalyzeTranscript analyses in-memory transcript content (e.g. a stored
// full.jsonl) from `from`, like ScanTranscript. Unlike a file scan, a last
// line without a newline is analysed and counted too (stored transcripts lack
// the final newline), so To.Offset is len(content).
func AnalyzeTranscript(content []byte, from agent.Position) *agent.Analysis {
	from = from.Sanitized()
	skip := 0
	if !agent.PositionHolds(bytes.NewReader(content), int64(len(content)), from) {
		from = agent.Position{}
	}
	if from.Offset == 0 {
		skip = from.Entries
	}
	var r io.Reader = bytes.NewReader(content[from.Offset:])
	addedNewline := len(content) > 0 && content[len(content)-1] != '\n'
	if addedNewline {
		r = io.MultiReader(r, bytes.NewReader([]byte("\n")))
	}
	an, _ := scanReader(r, from, skip, -1) // reading memory cannot fail
	if addedNewline {
		an.To.Offset--
	}
	return an
}

// GetTranscriptPosition returns the number of complete lines of the
// transcript (0 if it does not exist).
func (a *Agent) GetTranscriptPosition(path string) (int, error) {
	f, err := agent.OpenTranscript(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("transcript position: %w", err)
	}
	defer f.Close()
	_, n, err := agent.ForEachLine(f, func([]byte) error { return nil })
	if err != nil {
		return 0, fmt.Errorf("transcript position %s: %w", path, err)
	}
	return n, nil
}

// ExtractModifiedFilesFromOffset returns the files modified after line
// startOffset and the current line count. A missing file gives no files and
// position 0.
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
