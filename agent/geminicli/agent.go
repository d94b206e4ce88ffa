package geminicli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/entirecli/entire/agent"
)

func init() {
	agent.Register(agent.AgentNameGemini, func() agent.Agent { return New() })
}

// Compile-time checks of the capabilities this agent provides.
var (
	_ agent.Agent              = (*Agent)(nil)
	_ agent.HookSupport        = (*Agent)(nil)
	_ agent.HookInstaller      = (*Agent)(nil)
	_ agent.HookHandler        = (*Agent)(nil)
	_ agent.HookVerbResolver   = (*Agent)(nil)
	_ agent.NoOpHookVerbs      = (*Agent)(nil)
	_ agent.TranscriptAnalyzer = (*Agent)(nil)
	_ agent.TranscriptScanner  = (*Agent)(nil)
	_ agent.TranscriptChunker  = (*Agent)(nil)
)

// Environment variables read by the agent.
const (
	// EnvTestProjectDir overrides the session directory (tests).
	EnvTestProjectDir = "ENTIRE_TEST_GEMINI_PROJECT_DIR"
	// EnvCLIHome replaces the home directory that holds .gemini, as it does
	// for Gemini CLI.
	EnvCLIHome = "GEMINI_CLI_HOME"
)

// Agent is the Gemini CLI agent. The zero value is ready to use and reads
// the real environment; set Getenv/UserHomeDir to inject one. Safe for
// concurrent use.
type Agent struct {
	// Getenv looks up environment variables; nil means os.Getenv.
	Getenv func(string) string
	// UserHomeDir returns the home directory; nil means os.UserHomeDir.
	UserHomeDir func() (string, error)
}

// New returns a Gemini CLI agent that uses the real environment.
func New() *Agent { return &Agent{} }

func (a *Agent) getenv(k string) string {
	if a.Getenv != nil {
		return a.Getenv(k)
	}
	return os.Getenv(k)
}

func (a *Agent) home() (string, error) {
	if a.UserHomeDir != nil {
		return a.UserHomeDir()
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory: %w", err)
	}
	return h, nil
}

// Name returns "gemini".
func (a *Agent) Name() agent.AgentName { return agent.AgentNameGemini }

// Type returns "Gemini CLI".
func (a *Agent) Type() agent.AgentType { return agent.AgentTypeGemini }

// Description returns a one-line description for UI.
func (a *Agent) Description() string { return "Gemini CLI - Google's AI coding agent" }

// DetectPresence reports whether the repository containing the working
// directory has a .gemini directory (or .gemini/settings.json).
func (a *Agent) DetectPresence() (bool, error) {
	root, err := agent.RepoRoot()
	if err != nil {
		return false, err
	}
	if _, err := os.Stat(filepath.Join(root, ".gemini")); err == nil {
		return true, nil
	}
	return false, nil
}

// GetHookConfigPath returns ".gemini/settings.json".
func (a *Agent) GetHookConfigPath() string { return SettingsPath }

// SupportsHooks returns true.
func (a *Agent) SupportsHooks() bool { return true }

// ParseHookInput parses a Gemini CLI hook payload (AGENT-HOOKS.md B4/B5):
// session_id, transcript_path, cwd, hook_event_name, timestamp, prompt,
// tool_name/tool_input/tool_response, source, reason and the raw object.
// AfterAgent's prompt_response, the turn's final answer, becomes
// LastAssistantMessage. Empty input gives agent.ErrEmptyInput, malformed
// input (a prompt_response that is not a string included) an error wrapping
// agent.ErrMalformedInput.
func (a *Agent) ParseHookInput(hookType agent.HookType, r io.Reader) (*agent.HookInput, error) {
	in, err := agent.DecodeHookInput(hookType, r)
	if err != nil {
		return nil, fmt.Errorf("gemini %s: %w", hookType, err)
	}
	if v, ok := in.RawData["prompt_response"]; ok && v != nil {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("gemini %s: parse hook input: %w: prompt_response is not a string", hookType, agent.ErrMalformedInput)
		}
		in.LastAssistantMessage, in.HasLastAssistantMessage = s, true
	}
	return in, nil
}

// GetSessionID returns input.SessionID.
func (a *Agent) GetSessionID(input *agent.HookInput) string {
	if input == nil {
		return ""
	}
	return input.SessionID
}

// TransformSessionID returns the ID unchanged: the Entire session ID is the
// agent's own.
func (a *Agent) TransformSessionID(agentSessionID string) string { return agentSessionID }

// ExtractAgentSessionID returns the ID unchanged.
func (a *Agent) ExtractAgentSessionID(entireSessionID string) string { return entireSessionID }

// FormatResumeCommand returns "gemini --resume <id>".
func (a *Agent) FormatResumeCommand(sessionID string) string { return "gemini --resume " + sessionID }
