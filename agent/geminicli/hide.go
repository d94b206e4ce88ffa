package geminicli

import (
	"encoding/json"

	"github.com/entirecli/entire/agent"
)

var _ agent.ToolOutputHider = (*Agent)(nil)

// PlanHide plans the hiding of an AfterTool tool_response ({llmContent,
// returnDisplay, error}): the text the model would receive (llmContent as a
// string, or the text of its parts). The answer denies the result, so that
// the model receives the page as the reason instead (AGENT-HOOKS.md B5).
func (a *Agent) PlanHide(in *agent.HookInput, threshold int) (agent.HidePlan, bool) {
	text, ok := hideText(in.ToolResponse, threshold)
	if !ok {
		return agent.HidePlan{}, false
	}
	return agent.HidePlan{Text: text, Answer: func(page, _ string) map[string]any {
		return map[string]any{"decision": "deny", "reason": page}
	}}, true
}

// hideText returns the text of a tool_response's llmContent when it is
// longer than threshold.
func hideText(raw []byte, threshold int) (string, bool) {
	var resp struct {
		LLMContent json.RawMessage `json:"llmContent"`
	}
	if json.Unmarshal(raw, &resp) != nil || len(resp.LLMContent) == 0 {
		return "", false
	}
	v, err := agent.DecodeJSONValue(resp.LLMContent)
	if err != nil {
		return "", false
	}
	text := agent.TextOf(v)
	if len(text) <= threshold {
		return "", false
	}
	return text, true
}
