// Package copilotcli is GitHub Copilot CLI (`--agent copilot-cli`): its
// repository hooks in .github/hooks/entire.json (camelCase payloads
// without an event name: the verb tells the event), its session events in
// ~/.copilot/session-state/<id>/events.jsonl, and the files its create and
// edit tools write. AGENT.md tells what the client does and what is not
// supported.
package copilotcli

import (
	"github.com/entirecli/entire/agent"
)

// Name and Type are Copilot CLI's registry key and metadata label.
const (
	Name agent.AgentName = "copilot-cli"
	Type agent.AgentType = "Copilot CLI"
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
	_ agent.SessionStore         = (*Agent)(nil)
	_ agent.Enabler              = (*Agent)(nil)
	_ agent.HookedSpec           = spec{}
)

// Environment variables read by the agent.
const (
	// EnvHome relocates ~/.copilot.
	EnvHome = "COPILOT_HOME"
	// EnvTestSessionDir overrides the session directory (tests).
	EnvTestSessionDir = "ENTIRE_TEST_COPILOT_SESSION_DIR"
)

// Agent is the Copilot CLI agent. The zero value is ready to use and reads
// the real environment; set Getenv/UserHomeDir to inject one. Safe for
// concurrent use.
type Agent struct {
	agent.HookBase[spec]
}

// New returns a Copilot CLI agent that uses the real environment.
func New() *Agent { return &Agent{} }

// spec describes Copilot CLI to agent.HookBase.
type spec struct{}

// Identity returns Copilot CLI's identity. Its hooks file lies in .github,
// which is the project's, not the agent's: Copilot CLI protects no
// directory.
func (spec) Identity() agent.Identity {
	return agent.Identity{
		Name:              Name,
		Type:              Type,
		Description:       "Copilot CLI - GitHub's coding agent CLI",
		SettingsPath:      HooksPath,
		ResumeCommand:     "copilot --resume",
		TestSessionDirEnv: EnvTestSessionDir,
	}
}
