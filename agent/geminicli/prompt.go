package geminicli

import (
	"bytes"
	"encoding/json"

	"github.com/entirecli/entire/agent"
)

var _ agent.PromptCLI = (*Agent)(nil)

// PromptCommand returns `gemini --output-format json`.
func (a *Agent) PromptCommand() (string, []string) {
	return "gemini", []string{"--output-format", "json"}
}

// PromptAnswer returns the "response" of the JSON Gemini CLI prints.
func (a *Agent) PromptAnswer(output []byte) (string, bool) {
	var v struct {
		Response *string `json:"response"`
	}
	if json.Unmarshal(bytes.TrimSpace(output), &v) != nil || v.Response == nil {
		return "", false
	}
	return *v.Response, true
}
