package agent

import (
	"encoding/json"
	"io"
	"strconv"
	"time"
)

// A conversation is a transcript as a person reads it: who said what, the
// tool calls with their inputs and results, images, and what each model
// call cost. The local web view (explain/web) shows one; each agent reads
// its own transcript format into it (ConversationReader).

// ConversationReader is implemented by agents that can read their
// transcripts as a conversation.
type ConversationReader interface {
	// ReadConversation reads the transcript from r and calls fn with each
	// message in order, until fn returns false or the transcript ends.
	// Strings longer than limit bytes (tool outputs, file contents) are
	// cut to limit, and the message says how much was left out; images up
	// to MaxImageData bytes of base64 are kept whole. A line or a message
	// that cannot be read is skipped.
	ReadConversation(r io.Reader, limit int, fn func(Message) bool) error
}

// MaxImageData is the largest image (base64 bytes) a conversation keeps.
const MaxImageData = 2 << 20

// Message is one message of a conversation.
type Message struct {
	// Role is "user" or "assistant".
	Role string
	Time time.Time
	// Prompt reports a message the person wrote (not a tool result or
	// text the client added): what PromptText keeps, as condensation
	// counts prompts.
	Prompt bool
	// Sidechain reports a message of a subagent's conversation.
	Sidechain bool
	// Text is the message's text (its text parts joined).
	Text   string
	Images []Image
	// Calls are the tool calls an assistant message makes, Results the
	// tool results a message carries (for Gemini CLI, the call's own).
	Calls   []ToolCall
	Results []ToolResult
	// Usage is what the model call that wrote the message cost (nil when
	// the transcript does not say).
	Usage *TokenUsage
	// Cut is how many bytes of the message's strings were left out.
	Cut int
}

// ToolCall is a tool call of an assistant message.
type ToolCall struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// ToolResult is the result of a tool call.
type ToolResult struct {
	CallID  string
	Text    string
	IsError bool
	Images  []Image
}

// Image is an image of a message: its media type as the transcript
// states it and its base64 data (not checked).
type Image struct {
	MediaType string
	Data      string
}

// ShrinkLongStrings returns the JSON text line with every string literal
// longer than limit bytes cut to about limit bytes (never inside an escape)
// and closed, and the number of bytes left out; line itself when none is
// that long. The result is valid JSON when line is. The value of a "data"
// member (an image's base64) is kept whole up to keepData bytes.
func ShrinkLongStrings(line []byte, limit, keepData int) ([]byte, int) {
	spans := longStrings(line, limit+2)
	kept := spans[:0]
	for _, sp := range spans {
		if sp[1]-sp[0] > keepData || !dataValue(line, sp[0]) {
			kept = append(kept, sp)
		}
	}
	spans = kept
	if len(spans) == 0 {
		return line, 0
	}
	out := make([]byte, 0, len(line)-totalLen(spans)+len(spans)*(limit+48))
	last, cut := 0, 0
	for _, sp := range spans {
		lit := line[sp[0]:sp[1]]
		keep := limit + 1 // the opening quote and limit bytes
		// Back off to the start of an escape that the cut would split (at
		// most 11 bytes: \uXXXX\uXXXX). The scan starts at an escape's
		// start or outside one: every escape ends with a byte that is not a
		// backslash, so a maximal run of backslashes starts one.
		from := max(keep-12, 1)
		for from > 1 && lit[from-1] == '\\' {
			from--
		}
		for i := from; i < keep; i++ {
			if lit[i] == '\\' {
				j := i + 2
				if lit[i+1] == 'u' {
					j = i + 6
				}
				if j > keep {
					keep = i
					break
				}
				i = j - 1
			}
		}
		left := len(lit) - 1 - keep
		cut += left
		out = append(out, line[last:sp[0]]...)
		out = append(out, lit[:keep]...)
		out = append(out, " [... "...)
		out = strconv.AppendInt(out, int64(left), 10)
		out = append(out, ` bytes more]"`...)
		last = sp[1]
	}
	return append(out, line[last:]...), cut
}

// dataValue reports whether the string literal at start is the value of a
// "data" member.
func dataValue(line []byte, start int) bool {
	i := start - 1
	for i >= 0 && (line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r') {
		i--
	}
	if i < 0 || line[i] != ':' {
		return false
	}
	i--
	for i >= 0 && (line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r') {
		i--
	}
	return i >= 5 && string(line[i-5:i+1]) == `"data"`
}
