// Package antigravity is Google's Antigravity CLI, agy (`--agent
// antigravity`, a preview), Gemini CLI's successor for individual
// accounts: its named hook in .agents/hooks.json, its camelCase payloads
// keyed by conversationId (no session start and no prompt event: a turn
// starts at its first model call), and the step transcripts it writes
// under ~/.gemini/antigravity-cli/brain. Built from the documented hook
// contract (https://antigravity.google/docs/hooks), not yet run against
// the real client; AGENT.md says what is and is not supported.
package antigravity

import (
	"github.com/entirecli/entire/agent"
)

// Name and Type are Antigravity's registry key and metadata label.
const (
	Name agent.AgentName = "antigravity"
	Type agent.AgentType = "Antigravity"
)

func init() {
	agent.Register(Name, func() agent.Agent { return New() })
}

// Compile-time checks of the capabilities this agent provides.
var (
	_ agent.Agent             = (*Agent)(nil)
	_ agent.HookSupport       = (*Agent)(nil)
	_ agent.HookInstaller     = (*Agent)(nil)
	_ agent.HookHandler       = (*Agent)(nil)
	_ agent.HookEventParser   = (*Agent)(nil)
	_ agent.HookAnswerer      = (*Agent)(nil)
	_ agent.HookAnswerWriter  = (*Agent)(nil)
	_ agent.PromptlessTurns   = (*Agent)(nil)
	_ agent.TranscriptScanner = (*Agent)(nil)
	_ agent.TranscriptReader  = (*Agent)(nil)
	_ agent.TranscriptTimer   = (*Agent)(nil)
	_ agent.DirProtector      = (*Agent)(nil)
	_ agent.SessionStore      = (*Agent)(nil)
	_ agent.Enabler           = (*Agent)(nil)
	_ agent.TokenReporter     = (*Agent)(nil)
	_ agent.HookedSpec        = spec{}
)

// EnvTestSessionDir overrides the directory of conversations ("brain",
// tests).
const EnvTestSessionDir = "ENTIRE_TEST_ANTIGRAVITY_BRAIN_DIR"

// Agent is the Antigravity agent. The zero value is ready to use and
// reads the real environment; set Getenv/UserHomeDir to inject one. Safe
// for concurrent use.
type Agent struct {
	agent.HookBase[spec]
}

// New returns an Antigravity agent that uses the real environment.
func New() *Agent { return &Agent{} }

// spec describes Antigravity to agent.HookBase.
type spec struct{}

// Identity returns Antigravity's identity: "antigravity", "Antigravity",
// .agents, .agents/hooks.json, `agy --conversation <id>`.
func (spec) Identity() agent.Identity {
	return agent.Identity{
		Name:              Name,
		Type:              Type,
		Description:       "Antigravity CLI - Google's agentic coding CLI (Gemini CLI successor)",
		ConfigDir:         ".agents",
		SettingsPath:      HooksPath,
		ResumeCommand:     "agy --conversation",
		TestSessionDirEnv: EnvTestSessionDir,
	}
}

// TurnsStartWithoutPrompt returns true: agy has no prompt event; a turn
// starts at its first model call (PreInvocation).
func (a *Agent) TurnsStartWithoutPrompt() bool { return true }

// ReportsTokens returns false: neither agy's hooks nor its transcripts
// carry token usage.
func (a *Agent) ReportsTokens() bool { return false }

// EnableSpec lists the hooks file and says the integration is a preview.
func (a *Agent) EnableSpec() agent.EnableSpec {
	return agent.EnableSpec{
		Preview: true,
		Files: []agent.SetupFile{
			{Path: HooksPath, What: "hooks (commit it: teammates' sessions are recorded too)"},
		},
		Note: "Antigravity support is a preview, built from agy's hook documentation and not yet tested against the real client. " +
			"agy sends no prompt: a turn starts at its first model call and its prompt is read from the transcript. " +
			"No token usage is recorded.",
	}
}
