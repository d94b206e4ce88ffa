package agent

import (
	"bytes"
	"encoding/json"
	"strings"
)

// HidePlan is how the result of one tool call is hidden: the text stored as
// the hide, and how the hook answers so that the model sees a page of it
// instead.
type HidePlan struct {
	// Text is what is stored as the hide; it is longer than the threshold
	// the plan was made for.
	Text string
	// Answer returns the hook's answer that puts page (the hide's first
	// page, a cut envelope) in place of the hidden text, in the tool's
	// own output shape. note says where the output was stored and how to
	// read on; an agent adds it to the model's context where it cannot
	// replace the result (or cannot tell whether it can).
	Answer func(page, note string) map[string]any
}

// ToolOutputHider is implemented by agents whose post-tool hook can hide a
// large tool result from the model (PostToolHides).
type ToolOutputHider interface {
	// PlanHide returns how the result of the tool call in in (ToolName,
	// ToolResponse, SessionRef) is hidden when its text is longer than
	// threshold bytes; ok is false when nothing in it is. The caller
	// has already excluded Entire's own tools (IsEntireMCPTool) and
	// responses of at most threshold bytes. PlanHide may decode the
	// long strings of in.ToolResponse in place (DecodeJSONValueInPlace):
	// afterwards those bytes belong to the plan, and the caller neither
	// reads nor changes them.
	PlanHide(in *HookInput, threshold int) (plan HidePlan, ok bool)
}

// DecodeJSONValue decodes raw into a generic value (maps, slices, strings,
// json.Number, bools, nil), as hide plans walk it.
func DecodeJSONValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// TextOf returns the text of a decoded JSON value, the parts joined by
// newlines: a string is itself, an array the texts of its elements, an
// object its "text" member (as in content blocks and parts); anything else
// has none.
func TextOf(v any) string {
	var parts []string
	collectText(v, &parts)
	return strings.Join(parts, "\n")
}

func collectText(v any, out *[]string) {
	switch t := v.(type) {
	case string:
		*out = append(*out, t)
	case []any:
		for _, e := range t {
			collectText(e, out)
		}
	case map[string]any:
		if s, ok := t["text"].(string); ok {
			*out = append(*out, s)
		}
	}
}
