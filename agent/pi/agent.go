// Package pi is the Pi coding agent (`--agent pi`): Pi takes extensions,
// not command hooks, so entire writes one (.pi/extensions/entire/index.ts,
// embedded here) that forwards Pi's lifecycle events to `entire hooks pi
// <verb>`; its session files are JSONL trees (entries with id and
// parentId) under ~/.pi/agent/sessions. AGENT.md tells what the client
// does and what is not supported.
package pi

import (
	"bytes"
	_ "embed"

	"github.com/entirecli/entire/agent"
)

// Name and Type are Pi's registry key and metadata label.
const (
	Name agent.AgentName = "pi"
	Type agent.AgentType = "Pi"
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
	// EnvAgentDir relocates ~/.pi/agent, as it does for Pi.
	EnvAgentDir = "PI_CODING_AGENT_DIR"
	// EnvTestSessionDir overrides the session directory (tests).
	EnvTestSessionDir = "ENTIRE_TEST_PI_SESSION_DIR"
)

// Agent is the Pi agent. The zero value is ready to use and reads the
// real environment; set Getenv/UserHomeDir to inject one. Safe for
// concurrent use.
type Agent struct {
	agent.HookBase[spec]
}

// New returns a Pi agent that uses the real environment.
func New() *Agent { return &Agent{} }

// spec describes Pi to agent.HookBase.
type spec struct{}

// Identity returns Pi's identity: "pi", "Pi", .pi,
// .pi/extensions/entire/index.ts, `pi --session <id>`.
func (spec) Identity() agent.Identity {
	return agent.Identity{
		Name:              Name,
		Type:              Type,
		Description:       "Pi - a minimal terminal coding agent",
		ConfigDir:         ".pi",
		SettingsPath:      ExtensionPath,
		ResumeCommand:     "pi --session",
		TestSessionDirEnv: EnvTestSessionDir,
	}
}

// ExtensionPath is the extension entire writes, relative to the
// repository root. Pi loads <repo>/.pi/extensions/*/index.ts.
const ExtensionPath = ".pi/extensions/entire/index.ts"

//go:embed extension/index.ts
var extensionSource []byte

// Extension is the extension file entire writes.
func Extension() agent.PluginFile {
	marker := agent.PluginMarker(Name)
	return agent.PluginFile{Path: ExtensionPath, Marker: marker,
		Source: bytes.Replace(extensionSource, []byte("__MARKER__"), []byte(marker), 1)}
}
