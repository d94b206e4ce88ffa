package external

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/entirecli/entire/agent"
)

// Agent is the agent a program speaking protocol version 1 stands for. It
// is made by Discover (or New) from the program's validated info; safe for
// concurrent use.
type Agent struct {
	info Info
	run  Runner
	// copyDir is the directory of the transcript copies.
	copyDir string

	sessionDirOnce sync.Once
	sessionDir     string
	sessionDirErr  error
}

// Compile-time checks of the capabilities this agent provides.
var (
	_ agent.Agent               = (*Agent)(nil)
	_ agent.HookSupport         = (*Agent)(nil)
	_ agent.HookInstaller       = (*Agent)(nil)
	_ agent.HookHandler         = (*Agent)(nil)
	_ agent.HookEventParser     = (*Agent)(nil)
	_ agent.HookAnswerWriter    = (*Agent)(nil)
	_ agent.TranscriptScanner   = (*Agent)(nil)
	_ agent.TranscriptChunker   = (*Agent)(nil)
	_ agent.TranscriptReader    = (*Agent)(nil)
	_ agent.DocumentReader      = (*Agent)(nil)
	_ agent.TranscriptEnder     = (*Agent)(nil)
	_ agent.DirProtector        = (*Agent)(nil)
	_ agent.SessionStore        = (*Agent)(nil)
	_ agent.Enabler             = (*Agent)(nil)
	_ agent.TokenReporter       = (*Agent)(nil)
	_ agent.CopiedTranscript    = (*Agent)(nil)
	_ agent.TranscriptFormatter = (*Agent)(nil)
)

// New returns the agent of the program at r.Path whose info answer is
// info (already validated), keeping transcript copies in copyDir.
func New(info Info, r Runner, copyDir string) *Agent {
	return &Agent{info: info, run: r, copyDir: copyDir}
}

// Info returns the program's info answer.
func (a *Agent) Info() Info { return a.info }

// Program returns the program's path.
func (a *Agent) Program() string { return a.run.Path }

// Name returns the agent's name (the program's entire-agent-<name>).
func (a *Agent) Name() agent.AgentName { return agent.AgentName(a.info.Name) }

// Type returns the type label info declares.
func (a *Agent) Type() agent.AgentType { return agent.AgentType(a.info.Type) }

// Description returns info's description, or one naming the program.
func (a *Agent) Description() string {
	if a.info.Description != "" {
		return a.info.Description
	}
	return a.info.Type + " (external agent " + a.run.Path + ")"
}

// DetectPresence runs detect.
func (a *Agent) DetectPresence() (bool, error) {
	var out struct {
		Present bool `json:"present"`
	}
	if err := a.run.callJSON(context.Background(), &out, nil, "detect"); err != nil {
		return false, err
	}
	return out.Present, nil
}

// GetHookConfigPath returns "": the program alone knows where its hooks
// are.
func (a *Agent) GetHookConfigPath() string { return "" }

// SupportsHooks reports the hooks capability.
func (a *Agent) SupportsHooks() bool { return a.info.Capabilities.Hooks }

// GetHookNames returns info's hook names.
func (a *Agent) GetHookNames() []string {
	if !a.info.Capabilities.Hooks {
		return nil
	}
	return slices.Clone(a.info.HookNames)
}

// GetSupportedHooks returns every hook type an event may map to: the
// program tells the type of each call in parse-hook's answer.
func (a *Agent) GetSupportedHooks() []agent.HookType {
	if !a.info.Capabilities.Hooks {
		return nil
	}
	return []agent.HookType{agent.HookSessionStart, agent.HookUserPromptSubmit, agent.HookStop,
		agent.HookSessionEnd, agent.HookSubagentStart, agent.HookSubagentStop}
}

// ProtectedDirs returns info's protected directories.
func (a *Agent) ProtectedDirs() []string { return slices.Clone(a.info.ProtectedDirs) }

// ParseHookInput decodes a payload in the common snake_case shape, for
// callers that do not know the hook's verb; hooks go through
// ParseHookEvent, which asks the program.
func (a *Agent) ParseHookInput(hookType agent.HookType, r io.Reader) (*agent.HookInput, error) {
	return agent.DecodeHookInput(hookType, r)
}

// GetSessionID returns the input's session ID.
func (a *Agent) GetSessionID(input *agent.HookInput) string { return input.SessionID }

// TransformSessionID returns the ID unchanged.
func (a *Agent) TransformSessionID(id string) string { return id }

// ExtractAgentSessionID returns the ID unchanged.
func (a *Agent) ExtractAgentSessionID(id string) string { return id }

// GetSessionDir runs get-session-dir --repo-path repoPath; the answer must
// be an absolute path.
func (a *Agent) GetSessionDir(repoPath string) (string, error) {
	var out struct {
		SessionDir string `json:"session_dir"`
	}
	if err := a.run.callJSON(context.Background(), &out, nil, "get-session-dir", "--repo-path", repoPath); err != nil {
		return "", err
	}
	if !filepath.IsAbs(out.SessionDir) || CheckSessionRef(out.SessionDir, "") != nil {
		return "", fmt.Errorf("%w: %s get-session-dir: %q is not an absolute directory", ErrProtocol, a.info.Name, out.SessionDir)
	}
	return filepath.Clean(out.SessionDir), nil
}

// repoSessionDir is GetSessionDir of the runner's repository, asked once.
func (a *Agent) repoSessionDir() (string, error) {
	a.sessionDirOnce.Do(func() {
		a.sessionDir, a.sessionDirErr = a.GetSessionDir(a.run.RepoRoot)
	})
	return a.sessionDir, a.sessionDirErr
}

// FormatResumeCommand runs format-resume-command; a program that cannot
// answer gives a line that says so.
func (a *Agent) FormatResumeCommand(sessionID string) string {
	var out struct {
		Command string `json:"command"`
	}
	err := a.run.callJSON(context.Background(), &out, nil, "format-resume-command", "--session-id", sessionID)
	if err != nil || out.Command == "" || !printable(out.Command) || len(out.Command) > 1000 {
		return fmt.Sprintf("# %s cannot tell how to resume; the session is %s", a.info.Type, sessionID)
	}
	return out.Command
}

// WriteHookAnswer returns what a hook prints for its answer: the
// program's write-hook-response of the answer's message when it declares
// hook_response_writer, else nothing (the client's answer format is the
// program's to know).
func (a *Agent) WriteHookAnswer(_ agent.HookType, out map[string]any) []byte {
	msg, _ := out["systemMessage"].(string)
	if !a.info.Capabilities.HookResponseWriter || msg == "" {
		return nil
	}
	b, err := a.run.run(context.Background(), call{args: []string{"write-hook-response", "--message", msg}, timeout: CallTimeout, limit: 1 << 20})
	if err != nil {
		return nil
	}
	return b
}

// EnableSpec says that the agent is an external program.
func (a *Agent) EnableSpec() agent.EnableSpec {
	return agent.EnableSpec{Note: fmt.Sprintf("%s is an external agent: %s installs and removes its own hooks (protocol version %d).",
		a.info.Type, a.run.Path, ProtocolVersion)}
}

// ReportsTokens reports the token_calculator capability: without it no
// token figures are recorded (never zeros).
func (a *Agent) ReportsTokens() bool { return a.info.Capabilities.TokenCalculator }

// InstallHooks runs install-hooks in the current repository.
func (a *Agent) InstallHooks(_ bool, force bool) (int, error) {
	return a.InstallHooksIn(a.run.RepoRoot, agent.HookInstallOptions{Force: force})
}

// UninstallHooks runs uninstall-hooks.
func (a *Agent) UninstallHooks() error { return a.UninstallHooksIn(a.run.RepoRoot, nil) }

// AreHooksInstalled runs are-hooks-installed; unknown counts as installed
// (see HooksInstalledIn).
func (a *Agent) AreHooksInstalled() bool {
	ok, err := a.HooksInstalledIn(a.run.RepoRoot)
	return ok || err != nil
}

// in returns the runner for repoRoot.
func (a *Agent) in(repoRoot string) Runner {
	r := a.run
	if repoRoot != "" {
		r.RepoRoot = repoRoot
	}
	return r
}

// InstallHooksIn runs install-hooks [--force] in repoRoot (--local-dev is
// never sent) and returns the count it reports. A program without the
// hooks capability installs none.
func (a *Agent) InstallHooksIn(repoRoot string, opts agent.HookInstallOptions) (int, error) {
	if !a.info.Capabilities.Hooks {
		return 0, nil
	}
	args := []string{"install-hooks"}
	if opts.Force {
		args = append(args, "--force")
	}
	var out struct {
		HooksInstalled *int `json:"hooks_installed"`
	}
	if err := a.in(repoRoot).callJSON(context.Background(), &out, nil, args...); err != nil {
		return 0, err
	}
	if out.HooksInstalled == nil || *out.HooksInstalled < 0 {
		return 0, fmt.Errorf("%w: %s install-hooks: no hooks_installed count", ErrProtocol, a.info.Name)
	}
	return *out.HooksInstalled, nil
}

// UninstallHooksIn runs uninstall-hooks in repoRoot. Its failure carries
// the program's message and the command to run by hand.
func (a *Agent) UninstallHooksIn(repoRoot string, _ *agent.InstallLog) error {
	if !a.info.Capabilities.Hooks {
		return nil
	}
	if _, err := a.in(repoRoot).run(context.Background(), call{args: []string{"uninstall-hooks"}, timeout: CallTimeout, limit: maxJSONAnswer}); err != nil {
		return fmt.Errorf("%w (run `%s uninstall-hooks` in %s to remove them)", err, a.run.Path, repoRoot)
	}
	return nil
}

// HooksInstalledIn runs are-hooks-installed in repoRoot. A failure or an
// unreadable answer is an error: the hooks may still be installed.
func (a *Agent) HooksInstalledIn(repoRoot string) (bool, error) {
	if !a.info.Capabilities.Hooks {
		return false, nil
	}
	var out struct {
		Installed *bool `json:"installed"`
	}
	if err := a.in(repoRoot).callJSON(context.Background(), &out, nil, "are-hooks-installed"); err != nil {
		return false, err
	}
	if out.Installed == nil {
		return false, fmt.Errorf("%w: %s are-hooks-installed: no \"installed\" in the answer", ErrProtocol, a.info.Name)
	}
	return *out.Installed, nil
}

// jsonNull reports whether an answer is JSON null.
func jsonNull(b []byte) bool { return strings.TrimSpace(string(b)) == "null" }
