package agent

// HookAnswerer is implemented by agents that say how a hook's answer reaches
// them. An agent without it gets the default: a hook with nothing to say
// prints nothing, and a failure is its message on stderr with exit status 1
// (an error the agent shows and goes past).
type HookAnswerer interface {
	// EmptyHookAnswer returns what a hook prints on stdout when it has
	// nothing to say (a no-op verb, a disabled repository, a handler
	// without an answer); nil prints nothing.
	EmptyHookAnswer() map[string]any
	// HookFailure returns how a hook reports a failure whose message is
	// msg (already escaped for a terminal). When answer is not nil the
	// hook prints it on stdout instead of writing msg to stderr; code is
	// the hook's exit status either way. An agent that blocks on any
	// non-zero status answers with code 0.
	HookFailure(msg string) (answer map[string]any, code int)
}

// EmptyAnswer returns a's EmptyHookAnswer, or nil when a does not implement
// HookAnswerer.
func EmptyAnswer(a Agent) map[string]any {
	if h, ok := a.(HookAnswerer); ok {
		return h.EmptyHookAnswer()
	}
	return nil
}

// FailureAnswer returns a's HookFailure for msg, or (nil, 1) when a does
// not implement HookAnswerer.
func FailureAnswer(a Agent, msg string) (answer map[string]any, code int) {
	if h, ok := a.(HookAnswerer); ok {
		return h.HookFailure(msg)
	}
	return nil, 1
}

// PostToolRole says what a post-tool hook verb (one of HookPostToolUse)
// handles. The roles combine: one verb may stand for several.
type PostToolRole uint8

// Post-tool roles.
const (
	// PostToolDelegation: the end of a subagent tool call (Delegator),
	// which becomes a task checkpoint. An agent that is a SubagentFinder
	// gets the subagent looked up from its own transcript, and the hook
	// goes on to the verb's other roles; any other gets the conclusion
	// protocol's record (TaskResultReader) and the subagent's conclusion
	// as its answer.
	PostToolDelegation PostToolRole = 1 << iota
	// PostToolTodos: a call of one of the agent's todo tools
	// (TodoTracker), an incremental task checkpoint.
	PostToolTodos
	// PostToolHides: the result of any tool, stored as a hide when it is
	// over the hide threshold (ToolOutputHider).
	PostToolHides
)

// PostToolRouter is implemented by agents with post-tool hook verbs.
type PostToolRouter interface {
	// PostToolRole returns what verb handles; 0 for a verb that is not a
	// post-tool verb of the agent.
	PostToolRole(verb string) PostToolRole
}

// PostToolRoleOf returns a's PostToolRole for verb (0 when a does not
// implement PostToolRouter).
func PostToolRoleOf(a Agent, verb string) PostToolRole {
	if r, ok := a.(PostToolRouter); ok {
		return r.PostToolRole(verb)
	}
	return 0
}

// TaskResult is what the result of a subagent tool call says about the
// subagent's run.
type TaskResult struct {
	// AgentID is the subagent's own ID ("" when the result names none).
	AgentID string
	// Background is true when the subagent was launched to run in the
	// background: the result holds no answer yet.
	Background bool
}

// TaskResultReader is implemented by agents whose subagent tool result
// names the subagent's run.
type TaskResultReader interface {
	// ReadTaskResult decodes the raw tool_response of a subagent tool
	// call. An empty response, or one that is not a JSON object (the
	// message of a failed call), gives the zero TaskResult and no error;
	// an object that does not decode gives an error.
	ReadTaskResult(response []byte) (TaskResult, error)
}

// TaskNotice is a background subagent's completion as the agent hands it
// to the main agent: Claude Code (2.1.332 and later) submits it as a user
// prompt, a <task-notification> block, which no person typed.
type TaskNotice struct {
	// ToolUseID is the subagent tool call that started the task.
	ToolUseID string
	// Status is the task's status as the agent reports it ("completed",
	// "failed", "killed").
	Status string
	// Result is the subagent's final text (unescaped).
	Result string
}

// TaskNotifier is implemented by agents that hand background subagents'
// results to the main agent as prompts.
type TaskNotifier interface {
	// TaskNotification reads a UserPromptSubmit prompt: ok is true when
	// the prompt is a task notification and no person's prompt.
	TaskNotification(prompt string) (n TaskNotice, ok bool)
}
