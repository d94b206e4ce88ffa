// Package cursor is Cursor's agent (`--agent cursor`, a preview): its
// project hooks in .cursor/hooks.json ({"version": 1, "hooks": {...}},
// camelCase events, flat handler lists), its snake_case payloads keyed by
// conversation_id with workspace_roots for the directory, and the agent
// transcripts it writes under ~/.cursor/projects/<project>/agent-
// transcripts. Built from Cursor's documented hook contract
// (https://cursor.com/docs/agent/hooks), not yet run against the real
// client; AGENT.md says what is and is not supported.
package cursor

import (
	"github.com/entirecli/entire/agent"
)

// Name and Type are Cursor's registry key and metadata label.
const (
	Name agent.AgentName = "cursor"
	Type agent.AgentType = "Cursor"
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
	_ agent.HookVerbResolver  = (*Agent)(nil)
	_ agent.HookAnswerer      = (*Agent)(nil)
	_ agent.HookAnswerWriter  = (*Agent)(nil)
	_ agent.TranscriptScanner = (*Agent)(nil)
	_ agent.TranscriptReader  = (*Agent)(nil)
	_ agent.DirProtector      = (*Agent)(nil)
	_ agent.SessionStore      = (*Agent)(nil)
	_ agent.Enabler           = (*Agent)(nil)
	_ agent.TokenReporter     = (*Agent)(nil)
	_ agent.HookedSpec        = spec{}
)

// Environment variables read by the agent.
const (
	// EnvTestSessionDir overrides the transcript directory (tests).
	EnvTestSessionDir = "ENTIRE_TEST_CURSOR_PROJECT_DIR"
)

// Agent is the Cursor agent. The zero value is ready to use and reads
// the real environment; set Getenv/UserHomeDir to inject one. Safe for
// concurrent use.
type Agent struct {
	agent.HookBase[spec]
}

// New returns a Cursor agent that uses the real environment.
func New() *Agent { return &Agent{} }

// spec describes Cursor to agent.HookBase.
type spec struct{}

// Identity returns Cursor's identity: "cursor", "Cursor", .cursor,
// .cursor/hooks.json, `cursor-agent --resume <id>`.
func (spec) Identity() agent.Identity {
	return agent.Identity{
		Name:              Name,
		Type:              Type,
		Description:       "Cursor - the AI code editor and its CLI agent",
		ConfigDir:         ".cursor",
		SettingsPath:      HooksPath,
		ResumeCommand:     "cursor-agent --resume",
		TestSessionDirEnv: EnvTestSessionDir,
	}
}

// ReportsTokens returns false: Cursor's transcripts and hooks carry no
// token usage, so none is recorded (explain says "not recorded").
func (a *Agent) ReportsTokens() bool { return false }

// EnableSpec lists the hooks file and says the integration is a preview.
func (a *Agent) EnableSpec() agent.EnableSpec {
	return agent.EnableSpec{
		Preview: true,
		Files: []agent.SetupFile{
			{Path: HooksPath, What: "hooks (commit it: teammates' sessions are recorded too)"},
		},
		Note: "Cursor support is a preview, built from Cursor's hook documentation and not yet tested against the real client. " +
			"Cursor's CLI in print mode (-p) sends no beforeSubmitPrompt or stop: its work is recorded at the next commit, without turns. " +
			"No token usage is recorded.",
	}
}
