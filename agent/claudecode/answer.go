package claudecode

import "github.com/entirecli/entire/agent"

var (
	_ agent.HookAnswerer     = (*Agent)(nil)
	_ agent.PostToolRouter   = (*Agent)(nil)
	_ agent.TaskResultReader = (*Agent)(nil)
)

// EmptyHookAnswer returns nil: Claude Code needs no answer on stdout.
func (a *Agent) EmptyHookAnswer() map[string]any { return nil }

// HookFailure reports a failure on stderr with exit status 1, which Claude
// Code shows as a non-blocking error (it blocks only on 2).
func (a *Agent) HookFailure(msg string) (map[string]any, int) { return nil, 1 }

// PostToolRole maps the three PostToolUse verbs: post-task ends a subagent
// tool call, post-todo handles the todo tools and post-tool (every tool)
// hides large results.
func (a *Agent) PostToolRole(verb string) agent.PostToolRole {
	switch verb {
	case VerbPostTask:
		return agent.PostToolDelegation
	case VerbPostTodo:
		return agent.PostToolTodos
	case VerbPostTool:
		return agent.PostToolHides
	}
	return 0
}

// ReadTaskResult reads the subagent tool's tool_response (ParseTaskResponse):
// its agentId, and status "async_launched" for a background run.
func (a *Agent) ReadTaskResult(response []byte) (agent.TaskResult, error) {
	r, err := ParseTaskResponse(response)
	if err != nil {
		return agent.TaskResult{}, err
	}
	return agent.TaskResult{AgentID: r.AgentID, Background: r.Status == "async_launched"}, nil
}
