package agenttest

import (
	"time"

	"github.com/entirecli/entire/agent"
)

// Fixture is the agent-specific data the suite needs.
type Fixture struct {
	// NewWithEnv returns the agent under test reading environment variables
	// from env (nil map: empty environment) and using home as the home
	// directory.
	NewWithEnv func(env map[string]string, home string) agent.Agent
	// SessionDirEnv is the environment variable that overrides the session
	// directory (ENTIRE_TEST_*_PROJECT_DIR).
	SessionDirEnv string
	// StorageDir is where the agent keeps its data without the override,
	// relative to the home directory (".claude"): what SessionStore's
	// StorageDir must return for the session directory.
	StorageDir string

	// SettingsPath is the hook settings file relative to the repo root.
	SettingsPath string
	// Plugin says that SettingsPath is a plugin source file Entire writes
	// whole (agent.PluginFile), not a JSON settings file it merges into:
	// the hook checks are the plugin's (the file is Entire's alone, a
	// foreign file there is left as it is), ForeignSettings unused.
	Plugin bool
	// External says that the agent is an external program's
	// (agent/external): it installs its own hooks, parses payloads with
	// the verb (agent.HookEventParser; a case with a zero Want is a call
	// that is no event), and keeps sessions where the program says.
	External bool
	// ForeignSettings are settings files with content that is not
	// Entire's (unknown keys, foreign hooks); each must survive an
	// install/uninstall round trip byte for byte.
	ForeignSettings map[string]string
	// MergedKeys are top-level settings objects the installer adds its own
	// members to (Claude Code's "env"): after install, each of their
	// foreign members must still be there unchanged.
	MergedKeys []string

	// Hooks are sample payloads; there must be one for every verb the agent
	// installs (GetHookNames).
	Hooks []HookCase
	// WrongTypePayload is a payload with a known field of the wrong JSON
	// type, which must parse as malformed; "" means {"session_id": 42}.
	WrongTypePayload string

	// Session is a small native transcript with known answers.
	Session SessionCase

	// TranscriptFiles are real transcripts for chunking and scanning round
	// trips.
	TranscriptFiles []string
	// AppendEntry returns one complete transcript entry (a JSONL line
	// without newline) for growth tests; nil if the agent's transcripts
	// are not append-only.
	AppendEntry func(i int) []byte

	// Capabilities are the cases of the optional capabilities' checks.
	Capabilities CapabilityCases
}

// HookCase is one hook payload and the fields it must parse to.
type HookCase struct {
	Verb    string
	Payload string
	Want    agent.HookInput // compared field by field; RawData/Timestamp ignored
}

// SessionCase describes Session.Data and what the AgentSession queries must
// return for it.
type SessionCase struct {
	ID            string
	Data          []byte
	LastPrompt    string
	LastAssistant string
	// ToolUseID is a tool call whose result entry is ToolResultID, and
	// TruncateID an entry the transcript is cut after; both only for an
	// agent.TranscriptCutter.
	ToolUseID    string
	ToolResultID string
	TruncateID   string
	// HeaderNamesRepo says that WriteSession sets the repository it
	// restores into in the transcript's first line (Pi runs a session in
	// the directory its header names): that line is not compared.
	HeaderNamesRepo bool
	// Truncated is the expected cut at TruncateID (nil: not compared).
	Truncated []byte
	// ModifiedFiles are the files ReadSession must report.
	ModifiedFiles []string
	// FileName is the expected name, relative to an empty session dir,
	// of the file WriteSession writes there.
	FileName string
	// LastTime is what agent.LastEntryTime must return for Data (zero:
	// Data keeps no entry times).
	LastTime time.Time
}
