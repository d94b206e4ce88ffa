package claudecode

import (
	"bytes"
	"encoding/json"

	"github.com/entirecli/entire/agent"
)

var _ agent.PromptCLI = (*Agent)(nil)

// PromptCommand returns `claude --print --output-format json --model sonnet
// --setting-sources ""`: one answer, no user or project settings.
func (a *Agent) PromptCommand() (string, []string) {
	return "claude", []string{"--print", "--output-format", "json", "--model", "sonnet", "--setting-sources", ""}
}

// PromptAnswer returns the "result" of the JSON Claude Code prints.
func (a *Agent) PromptAnswer(output []byte) (string, bool) {
	var v struct {
		Result *string `json:"result"`
	}
	if json.Unmarshal(bytes.TrimSpace(output), &v) != nil || v.Result == nil {
		return "", false
	}
	return *v.Result, true
}
