package claudecode

import (
	"encoding/json"
	"fmt"

	"github.com/entirecli/entire/agent"
)

// TaskInput is the tool_input of the subagent tool (Agent, formerly Task).
type TaskInput struct {
	Description     string `json:"description"`
	Prompt          string `json:"prompt"`
	SubagentType    string `json:"subagent_type"`
	Model           string `json:"model,omitempty"`
	RunInBackground bool   `json:"run_in_background,omitempty"`
}

// TaskResponse is the tool_response of the subagent tool (post-task). Status
// is "completed" for foreground runs and "async_launched" for background
// runs (which have OutputFile and no usage).
type TaskResponse struct {
	Status      string `json:"status"`
	AgentID     string `json:"agentId"`
	OutputFile  string `json:"outputFile,omitempty"`
	TotalTokens int    `json:"totalTokens,omitempty"`
}

// ParseTaskInput decodes a pre-task/post-task tool_input. Empty input gives
// the zero TaskInput.
func ParseTaskInput(raw []byte) (TaskInput, error) {
	var in TaskInput
	if len(raw) == 0 {
		return in, nil
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return TaskInput{}, fmt.Errorf("parse task input: %w", err)
	}
	return in, nil
}

// ParseTaskResponse decodes a post-task tool_response. Claude Code also
// returns plain strings for failed calls; those give the zero TaskResponse
// and no error.
func ParseTaskResponse(raw []byte) (TaskResponse, error) {
	var r TaskResponse
	if len(raw) == 0 || raw[0] != '{' {
		return r, nil
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return TaskResponse{}, fmt.Errorf("parse task response: %w", err)
	}
	return r, nil
}

var _ agent.Delegator = (*Agent)(nil)

// Delegation reports whether a tool call is a subagent tool call (Agent,
// formerly Task) and what it asks.
func (a *Agent) Delegation(toolName string, input []byte) (agent.Delegation, bool) {
	if !IsTaskTool(toolName) {
		return agent.Delegation{}, false
	}
	in, _ := ParseTaskInput(input)
	return agent.Delegation{SubagentType: in.SubagentType, Description: in.Description, Prompt: in.Prompt}, true
}

var _ agent.HookToolNamer = (*Agent)(nil)

// ToolNameForVerb names the tool of a payload that carries no tool_name:
// the subagent tool for pre-task and post-task (the verbs' matcher admits
// no other), and for post-todo the todo tool whose tool_input has that
// shape (todos: TodoWrite; taskId: TaskUpdate; subject: TaskCreate).
func (a *Agent) ToolNameForVerb(verb string, input []byte) string {
	switch verb {
	case VerbPreTask, VerbPostTask:
		return "Task"
	case VerbPostTodo:
		var fields map[string]json.RawMessage
		if json.Unmarshal(input, &fields) != nil {
			return ""
		}
		for _, c := range []struct{ key, tool string }{{"todos", toolTodoWrite}, {"taskId", toolTaskUpdate}, {"subject", toolTaskCreate}} {
			if _, ok := fields[c.key]; ok {
				return c.tool
			}
		}
	}
	return ""
}
