package agent

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Identity is what tells one agent from another: its names, where it keeps
// its project configuration and how its sessions are resumed. An agent
// package describes itself with one (see Spec) and gets the methods that
// follow from it by embedding Base or HookBase.
type Identity struct {
	// Name is the registry key ("claude-code").
	Name AgentName
	// Type is the label stored in metadata and trailers ("Claude Code").
	Type AgentType
	// Description is a one-line description for UI.
	Description string
	// ConfigDir is the directory, relative to the repository root, that
	// holds the agent's project configuration (".claude"). Its presence
	// means the agent is set up in the repository, and it is a protected
	// directory (see DirProtector); "" when the agent has none.
	ConfigDir string
	// SettingsPath is the hook settings file relative to the repository
	// root (".claude/settings.json"); "" when the agent has none.
	SettingsPath string
	// ResumeCommand is the shell command that resumes a session, without
	// the session ID that follows it after a space ("claude -r").
	ResumeCommand string
	// TestSessionDirEnv is the environment variable that replaces the
	// agent's session directory in tests (SPEC 4.6), "" when none does.
	TestSessionDirEnv string
}

// Spec describes an agent to Base. It is implemented by a stateless type of
// the agent's package whose zero value answers, so that the agent's zero
// value is ready to use.
type Spec interface {
	// Identity returns the agent's identity; it is the same on every call.
	Identity() Identity
}

// Base implements the parts of Agent that follow from the agent's Identity
// and are the same for every agent: identity, environment access,
// presence detection, session IDs (the Entire session ID is the agent's
// own), a ParseHookInput over DecodeHookInput, the resume command, the
// protected directory and the test override of the session directory.
// Agents embed it (or HookBase) and add what is their own; a method the
// agent defines itself takes precedence. The zero value reads the real
// environment; set Getenv/UserHomeDir to inject one. Safe for concurrent
// use.
type Base[S Spec] struct {
	// Getenv looks up environment variables; nil means os.Getenv.
	Getenv func(string) string
	// UserHomeDir returns the home directory; nil means os.UserHomeDir.
	UserHomeDir func() (string, error)
}

func (b *Base[S]) identity() Identity {
	var s S
	return s.Identity()
}

// EnvVar returns the environment variable k, through Getenv when set.
func (b *Base[S]) EnvVar(k string) string {
	if b.Getenv != nil {
		return b.Getenv(k)
	}
	return os.Getenv(k)
}

// HomeDir returns the home directory, through UserHomeDir when set.
func (b *Base[S]) HomeDir() (string, error) {
	if b.UserHomeDir != nil {
		return b.UserHomeDir()
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory: %w", err)
	}
	return h, nil
}

// Name returns Identity.Name.
func (b *Base[S]) Name() AgentName { return b.identity().Name }

// Type returns Identity.Type.
func (b *Base[S]) Type() AgentType { return b.identity().Type }

// Description returns Identity.Description.
func (b *Base[S]) Description() string { return b.identity().Description }

// DetectPresence reports whether the repository containing the working
// directory has the agent's ConfigDir.
func (b *Base[S]) DetectPresence() (bool, error) {
	dir := b.identity().ConfigDir
	if dir == "" {
		return false, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return false, err
	}
	if _, err := os.Stat(filepath.Join(root, dir)); err == nil {
		return true, nil
	}
	return false, nil
}

// GetHookConfigPath returns Identity.SettingsPath.
func (b *Base[S]) GetHookConfigPath() string { return b.identity().SettingsPath }

// SupportsHooks returns false; HookBase returns true.
func (b *Base[S]) SupportsHooks() bool { return false }

// ParseHookInput parses a hook payload with DecodeHookInput; errors are
// prefixed with the agent's name and the hook type. Empty input gives
// ErrEmptyInput, malformed input an error wrapping ErrMalformedInput.
func (b *Base[S]) ParseHookInput(hookType HookType, r io.Reader) (*HookInput, error) {
	in, err := DecodeHookInput(hookType, r)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", b.Name(), hookType, err)
	}
	return in, nil
}

// GetSessionID returns input.SessionID ("" for a nil input).
func (b *Base[S]) GetSessionID(input *HookInput) string {
	if input == nil {
		return ""
	}
	return input.SessionID
}

// TransformSessionID returns the ID unchanged: the Entire session ID is the
// agent's own.
func (b *Base[S]) TransformSessionID(agentSessionID string) string { return agentSessionID }

// ExtractAgentSessionID returns the ID unchanged.
func (b *Base[S]) ExtractAgentSessionID(entireSessionID string) string { return entireSessionID }

// FormatResumeCommand returns Identity.ResumeCommand followed by a space
// and sessionID.
func (b *Base[S]) FormatResumeCommand(sessionID string) string {
	return b.identity().ResumeCommand + " " + sessionID
}

// ProtectedDirs returns Identity.ConfigDir (none when it is "").
func (b *Base[S]) ProtectedDirs() []string {
	if d := b.identity().ConfigDir; d != "" {
		return []string{d}
	}
	return nil
}

// TestSessionDirEnv returns Identity.TestSessionDirEnv.
func (b *Base[S]) TestSessionDirEnv() string { return b.identity().TestSessionDirEnv }

// SessionDirOverride returns the session directory the test override
// (TestSessionDirEnv) sets, "" when it is not set.
func (b *Base[S]) SessionDirOverride() string {
	env := b.identity().TestSessionDirEnv
	if env == "" {
		return ""
	}
	return b.EnvVar(env)
}
