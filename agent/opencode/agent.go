// Package opencode is OpenCode (`--agent opencode`): OpenCode takes
// plugins, not command hooks, so entire writes one
// (.opencode/plugins/entire.ts, embedded here) that forwards OpenCode's
// events to `entire hooks opencode <verb>`. OpenCode keeps sessions in
// SQLite: at each turn's end the plugin passes the session as `opencode
// export` prints it, and entire keeps it as JSONL, one export message per
// line, in a directory of its own beside OpenCode's database; resume hands it back through
// `opencode import`. AGENT.md tells what the client does and what is not
// supported.
package opencode

import (
	"bytes"
	_ "embed"

	"github.com/entirecli/entire/agent"
)

// Name and Type are OpenCode's registry key and metadata label.
const (
	Name agent.AgentName = "opencode"
	Type agent.AgentType = "OpenCode"
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
	_ agent.TranscriptTimer      = (*Agent)(nil)
	_ agent.Enabler              = (*Agent)(nil)
	_ agent.HookedSpec           = spec{}
)

// Environment variables read by the agent.
const (
	// EnvDataHome is the XDG data directory OpenCode keeps its database
	// in (default ~/.local/share); entire's copies of the sessions lie
	// beside it.
	EnvDataHome = "XDG_DATA_HOME"
	// EnvTestSessionDir overrides the session directory (tests).
	EnvTestSessionDir = "ENTIRE_TEST_OPENCODE_SESSION_DIR"
	// EnvBinary names the opencode program resume runs (default
	// "opencode" on PATH).
	EnvBinary = "ENTIRE_OPENCODE_BIN"
)

// Agent is the OpenCode agent. The zero value is ready to use and reads
// the real environment; set Getenv/UserHomeDir to inject one. Safe for
// concurrent use.
type Agent struct {
	agent.HookBase[spec]
}

// New returns an OpenCode agent that uses the real environment.
func New() *Agent { return &Agent{} }

// spec describes OpenCode to agent.HookBase.
type spec struct{}

// Identity returns OpenCode's identity: "opencode", "OpenCode",
// .opencode, .opencode/plugins/entire.ts, `opencode --session <id>`.
func (spec) Identity() agent.Identity {
	return agent.Identity{
		Name:              Name,
		Type:              Type,
		Description:       "OpenCode - an open-source terminal coding agent",
		ConfigDir:         ".opencode",
		SettingsPath:      PluginPath,
		ResumeCommand:     "opencode --session",
		TestSessionDirEnv: EnvTestSessionDir,
	}
}

// PluginPath is the plugin entire writes, relative to the repository
// root. OpenCode loads <repo>/.opencode/plugins/*.ts.
const PluginPath = ".opencode/plugins/entire.ts"

//go:embed plugin/entire.ts
var pluginSource []byte

// Plugin is the plugin file entire writes.
func Plugin() agent.PluginFile {
	marker := agent.PluginMarker(Name)
	return agent.PluginFile{Path: PluginPath, Marker: marker,
		Source: bytes.Replace(pluginSource, []byte("__MARKER__"), []byte(marker), 1)}
}
