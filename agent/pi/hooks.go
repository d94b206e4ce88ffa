package pi

import (
	"bufio"
	"bytes"
	"io"
	"os"

	"github.com/entirecli/entire/agent"
)

// Hook verbs (subcommands of `entire hooks pi`), one per Pi event the
// extension forwards.
const (
	VerbSessionStart = "session-start"
	VerbPromptSubmit = "user-prompt-submit"
	VerbPreTool      = "pre-tool"
	VerbPostTool     = "post-tool"
	VerbStop         = "stop"
	VerbCompact      = "compact"
	VerbSessionEnd   = "session-end"
)

// HookTable returns the hook table: Pi's event (as the extension
// subscribes to it) and the verb it runs, in the extension's order.
func HookTable() []agent.HookSpec {
	row := func(event, verb string, t agent.HookType) agent.HookSpec {
		return agent.HookSpec{Event: event, Verb: verb, Type: t}
	}
	return []agent.HookSpec{
		row("session_start", VerbSessionStart, agent.HookSessionStart),
		row("input", VerbPromptSubmit, agent.HookUserPromptSubmit),
		row("tool_call", VerbPreTool, agent.HookPreToolUse),
		row("tool_result", VerbPostTool, agent.HookPostToolUse),
		row("agent_end", VerbStop, agent.HookStop),
		row("session_compact", VerbCompact, agent.HookPreCompress),
		row("session_shutdown", VerbSessionEnd, agent.HookSessionEnd),
	}
}

// ParseHookInput parses a payload of the extension (snake_case, as
// agent.DecodeHookInput reads). Pi reports "startup" for a resumed
// session too: a session start whose session file already holds a
// message is a resume.
func (a *Agent) ParseHookInput(hookType agent.HookType, r io.Reader) (*agent.HookInput, error) {
	in, err := a.HookBase.ParseHookInput(hookType, r)
	if err != nil {
		return nil, err
	}
	if hookType == agent.HookSessionStart && in.Source == "startup" && holdsMessage(in.SessionRef) {
		in.Source = "resume"
	}
	return in, nil
}

// holdsMessage reports whether the session file at path has a message
// entry among its first lines (a new session's file has none, or does
// not exist yet). It reads at most 256 KiB.
func holdsMessage(path string) bool {
	if path == "" {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 256<<10))
	sc.Buffer(make([]byte, 64<<10), 256<<10)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"type":"message"`)) {
			return true
		}
	}
	return false
}

// InstallHooksIn writes the extension into repoRoot (agent.PluginFile).
func InstallHooksIn(repoRoot string, opts agent.HookInstallOptions) (int, error) {
	return Extension().Install(repoRoot, opts)
}

// UninstallHooksIn removes the extension when it is entire's; the
// directories enable created go once empty.
func UninstallHooksIn(repoRoot string, _ *agent.InstallLog) error {
	return Extension().Uninstall(repoRoot)
}

// HooksInstalledIn reports whether repoRoot has entire's extension.
func HooksInstalledIn(repoRoot string) (bool, error) { return Extension().Installed(repoRoot) }

// HookTable implements agent.HookedSpec.
func (spec) HookTable() []agent.HookSpec { return HookTable() }

// InstallHooksIn implements agent.HookInstaller.
func (spec) InstallHooksIn(repoRoot string, opts agent.HookInstallOptions) (int, error) {
	return InstallHooksIn(repoRoot, opts)
}

// UninstallHooksIn implements agent.HookInstaller.
func (spec) UninstallHooksIn(repoRoot string, log *agent.InstallLog) error {
	return UninstallHooksIn(repoRoot, log)
}

// HooksInstalledIn implements agent.HookInstaller.
func (spec) HooksInstalledIn(repoRoot string) (bool, error) { return HooksInstalledIn(repoRoot) }
