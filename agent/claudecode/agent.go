package claudecode

import (
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
	_ agent.NoOpHookVerbs       = (*Agent)(nil)
	_ agent.TranscriptAnalyzer  = (*Agent)(nil)
	_ agent.TranscriptScanner   = (*Agent)(nil)
	_ agent.TranscriptChunker   = (*Agent)(nil)
	_ agent.SubagentTokenReader = (*Agent)(nil)
	_ agent.TodoTracker         = (*Agent)(nil)
	_ agent.DirProtector        = (*Agent)(nil)
	_ agent.SessionStore        = (*Agent)(nil)
	_ agent.Enabler             = (*Agent)(nil)
	_ agent.HookedSpec          = spec{}
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
	agent.HookBase[spec]
}

// New returns a Claude Code agent that uses the real environment.
func New() *Agent { return &Agent{} }

// spec describes Claude Code to agent.HookBase.
type spec struct{}

// Identity returns Claude Code's identity: "claude-code", "Claude Code",
// .claude, .claude/settings.json, `claude -r <id>`.
func (spec) Identity() agent.Identity {
	return agent.Identity{
		Name:              agent.AgentNameClaudeCode,
		Type:              agent.AgentTypeClaudeCode,
		Description:       "Claude Code - Anthropic's agentic coding CLI",
		ConfigDir:         ".claude",
		SettingsPath:      SettingsPath,
		ResumeCommand:     "claude -r",
		TestSessionDirEnv: EnvTestProjectDir,
	}
}
