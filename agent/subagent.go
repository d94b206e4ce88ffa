package agent

import "time"

// Delegation is a tool call by which an agent hands a task to a subagent
// (Claude Code's Agent/Task tool, Gemini CLI's invoke_agent).
type Delegation struct {
	// SubagentType is the kind of subagent (Claude subagent_type, Gemini
	// agent_name).
	SubagentType string
	// Description says what the task is in a few words (Claude
	// description; Gemini: the prompt's first line).
	Description string
	// Prompt is what the subagent is asked.
	Prompt string
}

// Delegator is implemented by agents whose subagents are started by a tool
// call.
type Delegator interface {
	// Delegation reports whether a tool call starts a subagent and what it
	// asks; input is the call's raw JSON arguments.
	Delegation(toolName string, input []byte) (Delegation, bool)
}

// Subagent is a subagent run, as its own transcript shows it.
type Subagent struct {
	// ID is the subagent's own session or agent ID.
	ID string
	// TranscriptPath is its own transcript file.
	TranscriptPath string
	// Result is its final answer ("" when it gave none).
	Result string
}

// SubagentFinder is implemented by agents whose hooks do not say which
// subagent a delegation started (Gemini CLI sends no tool use ID and no
// subagent events): it finds the subagent's own transcript from what it was
// asked and when.
type SubagentFinder interface {
	// FindSubagent returns the first subagent started at or after since,
	// in the session whose transcript is transcriptPath, that was asked
	// d.Prompt. ok is false when there is none.
	FindSubagent(transcriptPath, sessionID string, d Delegation, since time.Time) (s Subagent, ok bool)
}
