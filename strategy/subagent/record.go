package subagent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/entirecli/entire/conclusion"
)

// ConclusionFile is the name of a task's record file.
const ConclusionFile = "conclusion.json"

// TasksDir is the directory of task records, relative to a session's
// metadata directory or committed session slot.
const TasksDir = "tasks"

// Output bounds: a record keeps at most MaxOutputBytes of the head of a
// subagent's output and, when that cut it, the last TailBytes as OutputTail
// (where the conclusion block sits).
const (
	MaxOutputBytes = 16 << 10
	TailBytes      = 4 << 10
)

// SlotPath is the slash path of a task's record relative to a session slot
// or metadata directory: "tasks/<taskID>/conclusion.json".
func SlotPath(taskID string) string { return TasksDir + "/" + taskID + "/" + ConclusionFile }

// SetOutput stores out in t as Output, cut to MaxOutputBytes (on a rune
// boundary), with OutputTail set to its last TailBytes when it was cut and
// cleared otherwise.
func SetOutput(t *conclusion.Task, out string) {
	t.OutputTail = ""
	if len(out) <= MaxOutputBytes {
		t.Output = out
		return
	}
	head := MaxOutputBytes
	for head > 0 && !utf8.RuneStart(out[head]) {
		head--
	}
	tail := len(out) - TailBytes
	for tail < len(out) && !utf8.RuneStart(out[tail]) {
		tail++
	}
	t.Output, t.OutputTail = out[:head], out[tail:]
}

// Redact passes every free-text field of t (output, tail, error and the
// conclusion's summary, follow-up, artifacts and memory refs) through
// redact. A nil t or redact does nothing.
func Redact(t *conclusion.Task, redact func(string) string) {
	if t == nil || redact == nil {
		return
	}
	t.Output, t.OutputTail, t.Error = redact(t.Output), redact(t.OutputTail), redact(t.Error)
	if c := t.Conclusion; c != nil {
		c.Summary, c.FollowUp = redact(c.Summary), redact(c.FollowUp)
		for i := range c.Artifacts {
			c.Artifacts[i] = redact(c.Artifacts[i])
		}
		for i := range c.MemoryRefs {
			c.MemoryRefs[i] = redact(c.MemoryRefs[i])
		}
	}
}

// Encode returns the conclusion.json bytes of t: indented JSON and a final
// newline.
func Encode(t *conclusion.Task) ([]byte, error) {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode task %s: %w", t.ID, err)
	}
	return append(b, '\n'), nil
}

// ErrCorrupt is returned (wrapped) for a record that is not a JSON object.
var ErrCorrupt = errors.New("subagent: corrupt task record")

// Decode reads a conclusion.json. Besides a task record it accepts a bare
// conclusion (an object with "summary" or "status" at top level and no
// "conclusion"), which it returns wrapped in a Task without metadata.
func Decode(b []byte) (*conclusion.Task, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	_, hasConclusion := probe["conclusion"]
	_, hasSummary := probe["summary"]
	_, hasEngine := probe["engine"]
	if !hasConclusion && !hasEngine && hasSummary {
		var c conclusion.Conclusion
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		return &conclusion.Task{Conclusion: &c}, nil
	}
	var t conclusion.Task
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return &t, nil
}

// ResponseText returns the text of a subagent tool's response as the
// parent agent received it: the "text" of every text item of "content"
// joined by newlines (Claude Code's Agent tool), the "llmContent" string
// (Gemini CLI), or the response itself when it is a JSON string. Anything
// else gives "".
func ResponseText(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var r struct {
		Content    json.RawMessage `json:"content"`
		LLMContent json.RawMessage `json:"llmContent"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return ""
	}
	if t := contentText(r.Content); t != "" {
		return t
	}
	return contentText(r.LLMContent)
}

// contentText is the text of a string or an array of {type, text} items.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var items []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &items) != nil {
		return ""
	}
	var parts []string
	for _, it := range items {
		if (it.Type == "text" || it.Type == "") && it.Text != "" {
			parts = append(parts, it.Text)
		}
	}
	return strings.Join(parts, "\n")
}
