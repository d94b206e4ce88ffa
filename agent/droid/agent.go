// Package droid is Factory's droid CLI (`--agent droid`): its project hooks
// in .factory/settings.json (Claude Code's file shape and snake_case
// payloads), its session transcripts under ~/.factory/sessions, and the
// files its Create and Edit tools write. droid runs its hooks with Claude
// Code's variables set (CLAUDE_PROJECT_DIR) beside its own: it is told
// apart by its own markers (the verb's agent, FACTORY_PROJECT_DIR), never
// taken for Claude Code. AGENT.md tells what the client does and what is
// not supported.
package droid

import (
	"github.com/entirecli/entire/agent"
)

// Name and Type are droid's registry key and metadata label.
const (
	Name agent.AgentName = "droid"
	Type agent.AgentType = "Factory AI Droid"
)

func init() {
	agent.Register(Name, func() agent.Agent { return New() })
}

// Compile-time checks of the capabilities this agent provides.
var (
	_ agent.Agent                = (*Agent)(nil)
	_ agent.HookSupport          = (*Agent)(nil)
	_ agent.HookInstaller        = (*Agent)(nil)
	_ agent.HookHandler          = (*Agent)(nil)
	_ agent.HookVerbResolver     = (*Agent)(nil)
	_ agent.TranscriptScanner    = (*Agent)(nil)
	_ agent.TranscriptReader     = (*Agent)(nil)
	_ agent.TranscriptRecognizer = (*Agent)(nil)
	_ agent.TranscriptSniffer    = (*Agent)(nil)
	_ agent.DirProtector         = (*Agent)(nil)
	_ agent.SessionStore         = (*Agent)(nil)
	_ agent.Enabler              = (*Agent)(nil)
	_ agent.PromptlessTurns      = (*Agent)(nil)
	_ agent.HookedSpec           = spec{}
)

// Environment variables read by the agent.
const (
	// EnvProjectDir is the variable droid sets for its hooks; Claude
	// Code's CLAUDE_PROJECT_DIR is set too and means nothing here.
	EnvProjectDir = "FACTORY_PROJECT_DIR"
	// EnvTestSessionDir overrides the session directory (tests).
	EnvTestSessionDir = "ENTIRE_TEST_DROID_SESSION_DIR"
)

// Agent is the droid agent. The zero value is ready to use and reads the
// real environment; set Getenv/UserHomeDir to inject one. Safe for
// concurrent use.
type Agent struct {
	agent.HookBase[spec]
}

// New returns a droid agent that uses the real environment.
func New() *Agent { return &Agent{} }

// spec describes droid to agent.HookBase.
type spec struct{}

// Identity returns droid's identity: "droid", "Factory AI Droid", .factory,
// .factory/settings.json, `droid --resume <id>`.
func (spec) Identity() agent.Identity {
	return agent.Identity{
		Name:              Name,
		Type:              Type,
		Description:       "Droid - Factory's coding agent CLI",
		ConfigDir:         ".factory",
		SettingsPath:      SettingsPath,
		ResumeCommand:     "droid --resume",
		TestSessionDirEnv: EnvTestSessionDir,
	}
}

// TurnsStartWithoutPrompt returns true: `droid exec` sends no
// UserPromptSubmit, so a turn starts at its first tool event (or at Stop
// when it calls no tool).
func (a *Agent) TurnsStartWithoutPrompt() bool { return true }
