// Package codex is OpenAI's Codex CLI (`--agent codex`): its project hooks
// in .codex/hooks.json (Claude Code's file shape and payloads, plus
// turn_id), its rollout transcripts under $CODEX_HOME/sessions, the files
// its apply_patch tool writes, and Entire's MCP server in the project's
// .codex/config.toml. AGENT.md tells what the client does and what is not
// supported.
package codex

import (
	"github.com/entirecli/entire/agent"
)

// Name and Type are Codex's registry key and metadata label.
const (
	Name agent.AgentName = "codex"
	Type agent.AgentType = "Codex"
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
	_ agent.MCPHost              = (*Agent)(nil)
	_ agent.MCPConfigurer        = (*Agent)(nil)
	_ agent.HookedSpec           = spec{}
)

// Environment variables read by the agent.
const (
	// EnvHome relocates ~/.codex, as it does for Codex.
	EnvHome = "CODEX_HOME"
	// EnvTestSessionDir overrides the session directory (tests).
	EnvTestSessionDir = "ENTIRE_TEST_CODEX_SESSION_DIR"
)

// Agent is the Codex CLI agent. The zero value is ready to use and reads
// the real environment; set Getenv/UserHomeDir to inject one. Safe for
// concurrent use.
type Agent struct {
	agent.HookBase[spec]
}

// New returns a Codex agent that uses the real environment.
func New() *Agent { return &Agent{} }

// spec describes Codex to agent.HookBase.
type spec struct{}

// Identity returns Codex's identity: "codex", "Codex", .codex,
// .codex/hooks.json, `codex resume <id>`.
func (spec) Identity() agent.Identity {
	return agent.Identity{
		Name:              Name,
		Type:              Type,
		Description:       "Codex - OpenAI's coding agent CLI",
		ConfigDir:         ".codex",
		SettingsPath:      HooksPath,
		ResumeCommand:     "codex resume",
		TestSessionDirEnv: EnvTestSessionDir,
	}
}
