package agent

import (
	"errors"
	"time"
)

// Sentinel errors of this package.
var (
	// ErrEmptyInput is returned by hook-input parsers when stdin holds no
	// data (or only whitespace).
	ErrEmptyInput = errors.New("agent: empty input")
	// ErrMalformedInput is wrapped by hook-input parsers when stdin is not a
	// JSON object.
	ErrMalformedInput = errors.New("agent: malformed hook input")
	// ErrUnknownAgent is returned by registry lookups that find nothing.
	ErrUnknownAgent = errors.New("agent: unknown agent")
	// ErrInvalidSettings is wrapped when an agent settings file is not a
	// valid JSON object; the file is left untouched.
	ErrInvalidSettings = errors.New("agent: invalid settings file")
	// ErrLineTooLarge is wrapped by ChunkJSONL when a single line exceeds
	// the chunk size (lines are never split).
	ErrLineTooLarge = errors.New("agent: line larger than chunk size")
)

// HookType is the normalized kind of a hook event, independent of the agent's
// own event names.
type HookType string

// Hook types. The string values are stable and may be logged.
const (
	// HookSessionStart: Claude SessionStart, Gemini SessionStart.
	HookSessionStart HookType = "session_start"
	// HookSessionEnd: Claude SessionEnd, Gemini SessionEnd.
	HookSessionEnd HookType = "session_end"
	// HookUserPromptSubmit: Claude UserPromptSubmit, Gemini BeforeAgent.
	HookUserPromptSubmit HookType = "user_prompt_submit"
	// HookStop: Claude Stop, Gemini AfterAgent.
	HookStop HookType = "stop"
	// HookPreToolUse: Claude PreToolUse, Gemini BeforeTool.
	HookPreToolUse HookType = "pre_tool_use"
	// HookPostToolUse: Claude PostToolUse, Gemini AfterTool.
	HookPostToolUse HookType = "post_tool_use"
	// HookSubagentStart: Claude SubagentStart.
	HookSubagentStart HookType = "subagent_start"
	// HookSubagentStop: Claude SubagentStop.
	HookSubagentStop HookType = "subagent_stop"
	// The Gemini types below are of verbs that are no longer installed:
	// calls from older installs are no-ops (see NoOpHookVerbs), so they
	// reach no handler.

	// HookBeforeModel: Gemini BeforeModel.
	HookBeforeModel HookType = "before_model"
	// HookAfterModel: Gemini AfterModel.
	HookAfterModel HookType = "after_model"
	// HookBeforeToolSelection: Gemini BeforeToolSelection.
	HookBeforeToolSelection HookType = "before_tool_selection"
	// HookPreCompress: Gemini PreCompress.
	HookPreCompress HookType = "pre_compress"
	// HookNotification: Gemini Notification.
	HookNotification HookType = "notification"
)

// HookInput contains normalized data from hook callbacks. String fields are
// empty and byte slices nil when the agent did not send the field.
type HookInput struct {
	HookType  HookType
	SessionID string
	// SessionRef is the agent's session reference: the transcript path.
	SessionRef string
	// Timestamp is the event time the agent sent (Gemini `timestamp`); zero
	// when absent or unparsable.
	Timestamp time.Time
	// Cwd is the agent's working directory (`cwd`).
	Cwd string
	// EventName is the agent's own event name (`hook_event_name`).
	EventName string

	// UserPrompt is the user's prompt text (UserPromptSubmit / BeforeAgent).
	UserPrompt string

	// Tool-specific fields (PreToolUse/PostToolUse, BeforeTool/AfterTool).
	ToolName     string
	ToolUseID    string
	ToolInput    []byte // Raw JSON
	ToolResponse []byte // Raw JSON (post-tool only)

	// Subagent fields (SubagentStart/SubagentStop and tool events fired
	// inside a subagent).
	AgentID             string
	SubagentType        string // `agent_type`
	AgentTranscriptPath string

	// LastAssistantMessage is the final assistant text (Stop, SubagentStop).
	LastAssistantMessage string
	// HasLastAssistantMessage is true when the payload carried the final
	// assistant text, even empty (clients older than Claude Code 2.1 do
	// not send it).
	HasLastAssistantMessage bool
	// StopHookActive is true when a Stop hook already continued the turn.
	StopHookActive bool
	// Source is the SessionStart source (startup, resume, clear, ...).
	Source string
	// Reason is the SessionEnd reason (exit, logout, clear, ...).
	Reason string

	// RawData preserves the whole decoded payload for extension, but for
	// a tool_input or tool_response over 1 MiB, which only ToolInput and
	// ToolResponse hold.
	RawData map[string]interface{}
}

// SessionChange represents detected session activity (for FileWatcher).
type SessionChange struct {
	SessionID  string
	SessionRef string
	EventType  HookType
	Timestamp  time.Time
}

// EntryType is the kind of a normalized session entry.
type EntryType string

// Entry types.
const (
	EntryUser      EntryType = "user"
	EntryAssistant EntryType = "assistant"
	EntryTool      EntryType = "tool"
	EntrySystem    EntryType = "system"
)

// SessionEntry represents a single entry in the session.
type SessionEntry struct {
	UUID      string
	Type      EntryType
	Timestamp time.Time
	Content   string

	// Tool-specific fields
	ToolName      string
	ToolInput     interface{}
	ToolOutput    interface{}
	FilesAffected []string
}

// TokenUsage represents aggregated token usage for a checkpoint. The JSON form
// is the `token_usage` object of SPEC 4.4.
type TokenUsage struct {
	// InputTokens is the number of input tokens (fresh, not from cache).
	InputTokens int `json:"input_tokens"`
	// CacheCreationTokens is tokens written to cache.
	CacheCreationTokens int `json:"cache_creation_tokens"`
	// CacheReadTokens is tokens read from cache.
	CacheReadTokens int `json:"cache_read_tokens"`
	// OutputTokens is the number of output tokens generated.
	OutputTokens int `json:"output_tokens"`
	// APICallCount is the number of API calls made.
	APICallCount int `json:"api_call_count"`
	// SubagentTokens contains token usage from spawned subagents (if any).
	SubagentTokens *TokenUsage `json:"subagent_tokens,omitempty"`
}

// IsZero reports whether u records no usage at all (nil counts as zero).
func (u *TokenUsage) IsZero() bool {
	return u == nil || (u.InputTokens == 0 && u.CacheCreationTokens == 0 && u.CacheReadTokens == 0 &&
		u.OutputTokens == 0 && u.APICallCount == 0 && u.SubagentTokens.IsZero())
}

// Add adds the counters of o (including nested subagent usage) to u. A nil o
// is a no-op.
func (u *TokenUsage) Add(o *TokenUsage) {
	if o == nil {
		return
	}
	u.InputTokens += o.InputTokens
	u.CacheCreationTokens += o.CacheCreationTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.OutputTokens += o.OutputTokens
	u.APICallCount += o.APICallCount
	if o.SubagentTokens != nil {
		if u.SubagentTokens == nil {
			u.SubagentTokens = &TokenUsage{}
		}
		u.SubagentTokens.Add(o.SubagentTokens)
	}
}
