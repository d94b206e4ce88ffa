package geminicli

import (
	"fmt"
	"io"

	"github.com/entirecli/entire/agent"
)

func init() {
	agent.Register(agent.AgentNameGemini, func() agent.Agent { return New() })
}

// Compile-time checks of the capabilities this agent provides.
var (
	_ agent.Agent                = (*Agent)(nil)
	_ agent.HookSupport          = (*Agent)(nil)
	_ agent.HookInstaller        = (*Agent)(nil)
	_ agent.HookHandler          = (*Agent)(nil)
	_ agent.HookVerbResolver     = (*Agent)(nil)
	_ agent.NoOpHookVerbs        = (*Agent)(nil)
	_ agent.TranscriptAnalyzer   = (*Agent)(nil)
	_ agent.TranscriptScanner    = (*Agent)(nil)
	_ agent.TranscriptChunker    = (*Agent)(nil)
	_ agent.DirProtector         = (*Agent)(nil)
	_ agent.SessionStore         = (*Agent)(nil)
	_ agent.Enabler              = (*Agent)(nil)
	_ agent.TranscriptFormatter  = (*Agent)(nil)
	_ agent.TranscriptRecognizer = (*Agent)(nil)
	_ agent.TranscriptTimer      = (*Agent)(nil)
	_ agent.HookedSpec           = spec{}
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
	agent.HookBase[spec]
}

// New returns a Gemini CLI agent that uses the real environment.
func New() *Agent { return &Agent{} }

// spec describes Gemini CLI to agent.HookBase.
type spec struct{}

// Identity returns Gemini CLI's identity: "gemini", "Gemini CLI", .gemini,
// .gemini/settings.json, `gemini --resume <id>`.
func (spec) Identity() agent.Identity {
	return agent.Identity{
		Name:              agent.AgentNameGemini,
		Type:              agent.AgentTypeGemini,
		Description:       "Gemini CLI - Google's AI coding agent",
		ConfigDir:         ".gemini",
		SettingsPath:      SettingsPath,
		ResumeCommand:     "gemini --resume",
		TestSessionDirEnv: EnvTestProjectDir,
	}
}

// ParseHookInput parses a Gemini CLI hook payload (AGENT-HOOKS.md B4/B5):
// session_id, transcript_path, cwd, hook_event_name, timestamp, prompt,
// tool_name/tool_input/tool_response, source, reason and the raw object.
// AfterAgent's prompt_response, the turn's final answer, becomes
// LastAssistantMessage. Empty input gives agent.ErrEmptyInput, malformed
// input (a prompt_response that is not a string included) an error wrapping
// agent.ErrMalformedInput.
func (a *Agent) ParseHookInput(hookType agent.HookType, r io.Reader) (*agent.HookInput, error) {
	in, err := a.HookBase.ParseHookInput(hookType, r)
	if err != nil {
		return nil, err
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
