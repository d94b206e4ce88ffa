package geminicli

import "github.com/entirecli/entire/agent"

var (
	_ agent.HookAnswerer   = (*Agent)(nil)
	_ agent.PostToolRouter = (*Agent)(nil)
)

// EmptyHookAnswer returns {}: Gemini CLI reads a JSON object from every
// hook.
func (a *Agent) EmptyHookAnswer() map[string]any { return map[string]any{} }

// HookFailure answers a failure with a systemMessage and exit status 0:
// Gemini CLI blocks on most non-zero statuses.
func (a *Agent) HookFailure(msg string) (map[string]any, int) {
	return map[string]any{"systemMessage": "Entire: " + msg}, 0
}

// PostToolRole maps after-tool, the one hook after every tool: the end of
// a subagent (invoke_agent) call, then the hiding of large results.
func (a *Agent) PostToolRole(verb string) agent.PostToolRole {
	if verb == VerbAfterTool {
		return agent.PostToolDelegation | agent.PostToolHides
	}
	return 0
}
