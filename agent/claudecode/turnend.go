package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/entirecli/entire/agent"
)

var _ agent.TurnEndWatcher = (*Agent)(nil)

// maxPendingLine bounds the incomplete last line a turn-end watch keeps
// between calls; a longer one is dropped (it cannot be the short final
// answer we look for) and the watch goes on after its newline.
const maxPendingLine = 64 << 20

// watchReadSize bounds one read of a turn-end watch; a check reads what
// was appended in pieces of this size, so its memory does not grow with
// the transcript (beyond one pending line).
const watchReadSize = 1 << 20

// WatchTurnEnd returns a check that reports whether the transcript holds
// the end of the turn that started at `from`. Claude Code may run the Stop
// hook before it has written the turn's last assistant line.
//
// With the payload's last_assistant_message (Claude Code 2.1), the turn has
// ended once an assistant entry after the turn's last prompt has that text
// (trimmed). Without it (older clients), once the turn's `hook_progress`
// line for the Stop hook is there. A present but empty message gives
// nothing to wait for: the check is done at once. Each call reads only the
// bytes appended since the previous one.
func (a *Agent) WatchTurnEnd(path string, from agent.Position, end agent.TurnEnd) agent.TurnEndCheck {
	from = from.Sanitized()
	w := &turnEndWatch{path: path, offset: from.Offset, want: strings.TrimSpace(end.FinalAnswer), byAnswer: end.HasFinalAnswer, from: from}
	if from.Offset == 0 {
		w.skipLines = from.Entries
	}
	if w.byAnswer && w.want == "" {
		return func() (bool, error) { return true, nil }
	}
	return w.check
}

// turnEndWatch is the state of one WatchTurnEnd check between calls.
type turnEndWatch struct {
	path string
	// from is the turn's start, checked against the file at the first
	// read (agent.PositionHolds); verified once it was.
	from     agent.Position
	verified bool
	// needPrompt is true, after a rewritten file sent the watch back to
	// its start, until a prompt was read.
	needPrompt bool
	offset     int64  // next byte to read
	pending    []byte // incomplete last line read so far
	// brief holds the incomplete last line instead of pending once it is
	// over agent.BriefAbove: shortened as it is read (the watch reads a
	// line's structure and short texts, not its long strings).
	brief     *agent.Briefer
	briefLen  int  // bytes of the line fed to brief
	dropping  bool // skipping the rest of an over-long line
	skipLines int  // complete lines still to skip (a cursor without offset)
	want      string
	byAnswer  bool
	// texts holds the text blocks of each assistant message since the
	// turn's last prompt, by message ID (a response is split over lines).
	texts map[string][]string
	// matched is true when the end was seen after the turn's last prompt
	// read so far; done once a whole read ends matched.
	matched, done bool
}

func (w *turnEndWatch) check() (bool, error) {
	if w.done {
		return true, nil
	}
	f, err := agent.OpenTranscript(w.path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // Claude Code creates it at its first flush
	}
	if err != nil {
		return false, fmt.Errorf("watch transcript: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("watch transcript: %w", err)
	}
	size := st.Size()
	if !w.verified {
		w.verified = true
		if !agent.PositionHolds(f, size, w.from) {
			// Rewritten below the turn's start and grown again: the
			// turn's lines are somewhere in the file, and a read from
			// the start finds its last prompt and its end.
			// Only what follows a prompt there can be this turn's end.
			w.offset, w.skipLines, w.needPrompt = 0, 0, true
		}
	}
	if size < w.offset {
		// Rewritten (a rewind restored it): nothing read so far is
		// trustworthy, and nothing in it is of this turn.
		return false, nil
	}
	if size == w.offset {
		return false, nil
	}
	// Read in pieces: from offset 0 (a rewritten file, a cursor without
	// offset) what is new is the whole transcript.
	buf := make([]byte, min(size-w.offset, watchReadSize))
	for w.offset < size {
		n, err := f.ReadAt(buf[:min(size-w.offset, int64(len(buf)))], w.offset)
		w.offset += int64(n)
		w.feed(buf[:n])
		if err == io.EOF {
			break // truncated meanwhile: the next call sees it
		}
		if err != nil {
			return false, fmt.Errorf("watch transcript %s: %w", w.path, err)
		}
	}
	// Decided on everything read: a prompt after the match means the
	// match was an earlier turn's.
	w.done = w.matched
	return w.done, nil
}

// feed processes newly read bytes, line by line.
func (w *turnEndWatch) feed(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			switch {
			case w.dropping:
			case w.brief != nil:
				w.brief.Write(b)
				w.briefLen += len(b)
				if w.briefLen > maxPendingLine {
					w.brief, w.dropping = nil, true
				}
			case len(w.pending)+len(b) > agent.BriefAbove:
				w.brief = &agent.Briefer{}
				w.brief.Write(w.pending)
				w.brief.Write(b)
				w.briefLen = len(w.pending) + len(b)
				w.pending = nil
			default:
				w.pending = append(w.pending, b...)
			}
			return
		}
		line := b[:i]
		b = b[i+1:]
		if w.dropping {
			w.dropping = false
			continue
		}
		if w.brief != nil {
			w.brief.Write(line)
			line, w.brief = w.brief.Line(), nil
		} else if len(w.pending) > 0 {
			line = append(w.pending, line...)
			w.pending = nil
		}
		if w.skipLines > 0 {
			w.skipLines--
			continue
		}
		w.line(line)
	}
}

// turnEndEntry is the part of a transcript line a turn-end watch reads.
type turnEndEntry struct {
	Type        string `json:"type"`
	IsMeta      bool   `json:"isMeta"`
	IsSidechain bool   `json:"isSidechain"`
	Message     struct {
		ID      string          `json:"id"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	Data *struct {
		Type      string `json:"type"`
		HookEvent string `json:"hookEvent"`
	} `json:"data"`
}

var (
	assistantType = []byte(`"assistant"`)
	userType      = []byte(`"user"`)
	hookProgress  = []byte(`"hook_progress"`)
	toolResult    = []byte(`"tool_result"`)
	textBlock     = []byte(`"type":"text"`)
)

// line reads one transcript line. Lines are classified by bytes first, so
// that the bulk of a turn (tool results, tool calls carrying file contents,
// attachments) is never decoded: a token such as "tool_result" appears
// unescaped only as JSON syntax, never inside a string.
func (w *turnEndWatch) line(b []byte) {
	switch {
	case bytes.Contains(b, hookProgress):
		if w.byAnswer {
			return
		}
	case bytes.Contains(b, toolResult):
		return // a tool result: neither a prompt nor an answer
	case bytes.Contains(b, assistantType):
		if !w.byAnswer || !bytes.Contains(b, textBlock) {
			return // an answer is a text block
		}
	case !bytes.Contains(b, userType):
		return
	}
	var e turnEndEntry
	if json.Unmarshal(bytes.TrimSpace(b), &e) != nil || e.IsSidechain {
		return
	}
	switch {
	case e.Type == "user" && !e.IsMeta:
		if agent.PromptText(agent.MessageText(e.Message.Content)) != "" {
			// A new prompt: what came before belongs to an earlier turn.
			w.texts, w.matched, w.needPrompt = nil, false, false
		}
	case w.needPrompt:
	case e.Type == "assistant" && w.byAnswer:
		w.assistant(e.Message.ID, e.Message.Content)
	case e.Type == "progress" && !w.byAnswer && e.Data != nil:
		if e.Data.Type == "hook_progress" && e.Data.HookEvent == "Stop" {
			w.matched = true
		}
	}
}

// assistant records an assistant line's text blocks and checks whether
// the message's text is the final answer.
func (w *turnEndWatch) assistant(id string, content json.RawMessage) {
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if len(content) > 0 && content[0] == '"' {
		var s string
		if json.Unmarshal(content, &s) == nil && strings.TrimSpace(s) == w.want {
			w.matched = true
		}
		return
	}
	if json.Unmarshal(content, &blocks) != nil {
		return
	}
	if w.texts == nil {
		w.texts = map[string][]string{}
	}
	for _, bl := range blocks {
		if bl.Type != "text" {
			continue
		}
		if strings.TrimSpace(bl.Text) == w.want {
			w.matched = true
			return
		}
		w.texts[id] = append(w.texts[id], bl.Text)
	}
	// A message of several text blocks: the client joins them.
	if parts := w.texts[id]; len(parts) > 1 {
		for _, sep := range []string{"\n\n", "\n", ""} {
			if strings.TrimSpace(strings.Join(parts, sep)) == w.want {
				w.matched = true
				return
			}
		}
	}
}
