package agent

import (
	"io"
	"slices"
)

// AgentName is the registry key type for agents (e.g., "claude-code", "gemini").
type AgentName string

// Agent name constants (registry keys).
const (
	// AgentNameClaudeCode is the registry key of Claude Code.
	AgentNameClaudeCode AgentName = "claude-code"
	// AgentNameGemini is the registry key of Gemini CLI.
	AgentNameGemini AgentName = "gemini"
)

// DefaultAgentName is the registry key for the default agent.
const DefaultAgentName AgentName = AgentNameClaudeCode

// DefaultAgentType is the type label of the default agent.
const DefaultAgentType AgentType = AgentTypeClaudeCode

// AgentType is the display name type stored in metadata/trailers (e.g., "Claude
// Code", "Gemini CLI").
type AgentType string

// Agent type constants (type identifiers stored in metadata/trailers).
const (
	// AgentTypeClaudeCode is the type label of Claude Code.
	AgentTypeClaudeCode AgentType = "Claude Code"
	// AgentTypeGemini is the type label of Gemini CLI.
	AgentTypeGemini AgentType = "Gemini CLI"
	// AgentTypeUnknown is the fallback label for backwards compatibility.
	AgentTypeUnknown AgentType = "Agent"
)

// Agent defines the interface for interacting with a coding agent. Each agent
// implementation converts its native format to the normalized types defined in
// this package. Implementations are stateless values and safe for concurrent
// use.
type Agent interface {
	// Name returns the agent registry key (e.g., "claude-code", "gemini").
	Name() AgentName
	// Type returns the agent type identifier (e.g., "Claude Code", "Gemini
	// CLI"). This is stored in metadata and trailers.
	Type() AgentType
	// Description returns a human-readable description for UI.
	Description() string
	// DetectPresence reports whether this agent is configured in the
	// repository that contains the working directory.
	DetectPresence() (bool, error)
	// GetHookConfigPath returns the path of the hook config file relative to
	// the repository root (empty if the agent has none).
	GetHookConfigPath() string
	// SupportsHooks returns true if the agent supports lifecycle hooks.
	SupportsHooks() bool
	// ParseHookInput parses hook callback input from stdin. Empty input gives
	// ErrEmptyInput; malformed JSON gives an error wrapping ErrMalformedInput.
	ParseHookInput(hookType HookType, reader io.Reader) (*HookInput, error)
	// GetSessionID extracts the session ID from hook input.
	GetSessionID(input *HookInput) string
	// TransformSessionID converts an agent session ID to an Entire session ID.
	TransformSessionID(agentSessionID string) string
	// ExtractAgentSessionID extracts the agent session ID from an Entire ID.
	ExtractAgentSessionID(entireSessionID string) string
	// GetSessionDir returns where the agent stores session data for the
	// repository at repoPath.
	GetSessionDir(repoPath string) (string, error)
	// ReadSession reads session data from the agent's storage; the file is
	// input.SessionRef (the transcript path).
	ReadSession(input *HookInput) (*AgentSession, error)
	// WriteSession writes session data for resumption (atomically, mode 0600,
	// parent directories 0750).
	WriteSession(session *AgentSession) error
	// FormatResumeCommand returns the shell command that resumes a session.
	FormatResumeCommand(sessionID string) string
}

// Factory creates an Agent. Factories must be cheap and side-effect free.
type Factory func() Agent

// HookSupport is implemented by agents with lifecycle hooks. The methods act on
// the repository that contains the working directory (see HookInstaller for
// the path-taking equivalents).
type HookSupport interface {
	Agent
	// InstallHooks installs agent-specific hooks. If localDev is true, hooks
	// point to the local development build. If force is true, existing Entire
	// hooks are removed before installing. Returns the number of hooks added.
	InstallHooks(localDev bool, force bool) (int, error)
	// UninstallHooks removes installed hooks.
	UninstallHooks() error
	// AreHooksInstalled checks if hooks are currently installed.
	AreHooksInstalled() bool
	// GetSupportedHooks returns the hook types this agent supports.
	GetSupportedHooks() []HookType
}

// HookInstallOptions selects how hooks are installed.
type HookInstallOptions struct {
	// LocalDev makes hook commands run the development build through
	// `go run ${<AGENT>_PROJECT_DIR}/cmd/entire/main.go`.
	LocalDev bool
	// Force removes every Entire hook before adding the current set.
	Force bool
	// Log, when not nil, records what the install inserts and creates, for
	// UninstallHooksIn.
	Log *InstallLog
}

// HookInstaller is the path-taking form of HookSupport, implemented by both
// built-in agents. repoRoot is the directory that holds the agent's settings
// directory (.claude, .gemini).
//
// Contract: install merges into the existing settings file, keeps every
// unknown key and foreign hook, adds Entire's hooks once (a second install
// leaves the file byte-identical) and reports how many hooks it added.
// Uninstall takes out what the install recorded in log (exactly those
// bytes; see package jsonedit) and every Entire hook, keeping what the user
// added; with a nil log (an older install) it removes what it recognises as
// Entire's. A settings file that is not valid
// JSON is reported as an error wrapping ErrInvalidSettings and left untouched.
type HookInstaller interface {
	InstallHooksIn(repoRoot string, opts HookInstallOptions) (int, error)
	UninstallHooksIn(repoRoot string, log *InstallLog) error
	HooksInstalledIn(repoRoot string) (bool, error)
}

// HookHandler is implemented by agents that define their own hook vocabulary.
// Each verb becomes a subcommand under `entire hooks <agent>`.
type HookHandler interface {
	Agent
	// GetHookNames returns the hook verbs this agent installs, e.g.
	// ["session-start", "session-end", "stop", ...].
	GetHookNames() []string
}

// HookVerbResolver maps a hook verb (the `entire hooks <agent> <verb>`
// subcommand) to the normalized hook type used by ParseHookInput. It knows
// every verb the agent can parse, including ones not installed yet.
type HookVerbResolver interface {
	HookTypeForVerb(verb string) (HookType, bool)
}

// HookToolNamer is implemented by agents some of whose hook verbs imply
// the tool of the call, so that a payload without tool_name (Entire
// 0.4.x's pre-task and post-task read none) is still understood.
type HookToolNamer interface {
	// ToolNameForVerb returns the tool a call of verb with the given raw
	// tool_input was made with, "" when neither tells.
	ToolNameForVerb(verb string, toolInput []byte) string
}

// NoOpHookVerbs is implemented by agents that still accept hook verbs they
// no longer install, because settings files written by an older `entire
// enable` keep calling them until enable runs again. Such a call does
// nothing: the hook drains stdin, prints the agent's empty answer and exits
// 0 without opening the repository, the log or the payload.
type NoOpHookVerbs interface {
	// NoOpHookVerbs returns those verbs; none of them is in GetHookNames.
	NoOpHookVerbs() []string
}

// IsNoOpHookVerb reports whether verb is one of a's NoOpHookVerbs (false
// when a does not implement the interface).
func IsNoOpHookVerb(a Agent, verb string) bool {
	n, ok := a.(NoOpHookVerbs)
	return ok && slices.Contains(n.NoOpHookVerbs(), verb)
}

// FileWatcher is implemented by agents that use file-based detection instead
// of hooks.
type FileWatcher interface {
	Agent
	// GetWatchPaths returns paths to watch for session changes.
	GetWatchPaths() ([]string, error)
	// OnFileChange handles a detected file change and returns session info.
	OnFileChange(path string) (*SessionChange, error)
}

// TranscriptAnalyzer is implemented by agents that support transcript
// analysis. For JSONL transcripts positions count complete lines; for Gemini's
// single-JSON transcripts they count messages.
type TranscriptAnalyzer interface {
	Agent
	// GetTranscriptPosition returns the current position (length) of a
	// transcript: lines for JSONL, messages for single-JSON. Returns 0 if the
	// file does not exist or is empty.
	GetTranscriptPosition(path string) (int, error)
	// ExtractModifiedFilesFromOffset extracts files modified since
	// startOffset (a position as returned by GetTranscriptPosition) and
	// returns them with the current position.
	ExtractModifiedFilesFromOffset(path string, startOffset int) (files []string, currentPosition int, err error)
}

// TranscriptChunker is implemented by agents that support format-aware
// transcript chunking for storage.
type TranscriptChunker interface {
	Agent
	// ChunkTranscript splits a transcript into chunks of at most maxSize
	// bytes. If the transcript fits, it returns a single-element slice
	// holding content unchanged.
	ChunkTranscript(content []byte, maxSize int) ([][]byte, error)
	// ReassembleTranscript combines chunks back into a single transcript.
	ReassembleTranscript(chunks [][]byte) ([]byte, error)
}
