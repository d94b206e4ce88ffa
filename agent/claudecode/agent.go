package claudecode

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/entirecli/entire/agent"
)

func init() {
	agent.Register(agent.AgentNameClaudeCode, func() agent.Agent { return New() })
}

// Compile-time checks of the capabilities this agent provides.
var (
	_ agent.Agent               = (*Agent)(nil)
	_ agent.HookSupport         = (*Agent)(nil)
	_ agent.HookInstaller       = (*Agent)(nil)
	_ agent.HookHandler         = (*Agent)(nil)
	_ agent.HookVerbResolver    = (*Agent)(nil)
	_ agent.TranscriptAnalyzer  = (*Agent)(nil)
	_ agent.TranscriptScanner   = (*Agent)(nil)
	_ agent.TranscriptChunker   = (*Agent)(nil)
	_ agent.SubagentTokenReader = (*Agent)(nil)
	_ agent.TodoTracker         = (*Agent)(nil)
)

// Environment variables read by the agent.
const (
	// EnvTestProjectDir overrides the session directory (tests).
	EnvTestProjectDir = "ENTIRE_TEST_CLAUDE_PROJECT_DIR"
	// EnvConfigDir relocates ~/.claude, as it does for Claude Code.
	EnvConfigDir = "CLAUDE_CONFIG_DIR"
)

// Agent is the Claude Code agent. The zero value is ready to use and reads
// the real environment; set Getenv/UserHomeDir to inject one. Safe for
// concurrent use.
type Agent struct {
	// Getenv looks up environment variables; nil means os.Getenv.
	Getenv func(string) string
	// UserHomeDir returns the home directory; nil means os.UserHomeDir.
	UserHomeDir func() (string, error)
}

// New returns a Claude Code agent that uses the real environment.
func New() *Agent { return &Agent{} }

func (a *Agent) getenv(k string) string {
	if a.Getenv != nil {
		return a.Getenv(k)
	}
	return os.Getenv(k)
}

func (a *Agent) home() (string, error) {
	if a.UserHomeDir != nil {
		return a.UserHomeDir()
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory: %w", err)
	}
	return h, nil
}

// Name returns "claude-code".
func (a *Agent) Name() agent.AgentName { return agent.AgentNameClaudeCode }

// Type returns "Claude Code".
func (a *Agent) Type() agent.AgentType { return agent.AgentTypeClaudeCode }

// Description returns a one-line description for UI.
func (a *Agent) Description() string { return "Claude Code - Anthropic's agentic coding CLI" }

// DetectPresence reports whether the repository containing the working
// directory has a .claude directory (or .claude/settings.json).
func (a *Agent) DetectPresence() (bool, error) {
	root, err := agent.RepoRoot()
	if err != nil {
		return false, err
	}
	if _, err := os.Stat(filepath.Join(root, ".claude")); err == nil {
		return true, nil
	}
	return false, nil
}

// GetHookConfigPath returns ".claude/settings.json".
func (a *Agent) GetHookConfigPath() string { return SettingsPath }

// SupportsHooks returns true.
func (a *Agent) SupportsHooks() bool { return true }

// ParseHookInput parses a Claude Code hook payload (AGENT-HOOKS.md A3/A4):
// session_id, transcript_path, cwd, prompt, tool fields, subagent fields and
// the raw object. Empty input gives agent.ErrEmptyInput, malformed input an
// error wrapping agent.ErrMalformedInput.
func (a *Agent) ParseHookInput(hookType agent.HookType, r io.Reader) (*agent.HookInput, error) {
	in, err := agent.DecodeHookInput(hookType, r)
	if err != nil {
		return nil, fmt.Errorf("claude-code %s: %w", hookType, err)
	}
	return in, nil
}

// GetSessionID returns input.SessionID.
func (a *Agent) GetSessionID(input *agent.HookInput) string {
	if input == nil {
		return ""
	}
	return input.SessionID
}

// TransformSessionID returns the ID unchanged: the Entire session ID is the
// agent's own.
func (a *Agent) TransformSessionID(agentSessionID string) string { return agentSessionID }

// ExtractAgentSessionID returns the ID unchanged.
func (a *Agent) ExtractAgentSessionID(entireSessionID string) string { return entireSessionID }

// FormatResumeCommand returns "claude -r <id>".
func (a *Agent) FormatResumeCommand(sessionID string) string { return "claude -r " + sessionID }
