package codex

import (
	"strings"

	"github.com/entirecli/entire/agent"
)

// HooksPath is the project hooks file, relative to the repository root.
const HooksPath = ".codex/hooks.json"

// Command forms. Codex runs a hook with the session's directory as its
// working directory and sets no project directory variable, so the
// local-dev form finds the repository with git.
const (
	commandPrefix         = "entire hooks codex "
	localDevCommandPrefix = `go run "$(git rev-parse --show-toplevel)/cmd/entire/main.go" hooks codex `
	ownedPrefix           = "entire "
	ownedLocalDevPrefix   = `go run "$(git rev-parse --show-toplevel)/cmd/entire/main.go" `
)

// Hook verbs (subcommands of `entire hooks codex`).
const (
	VerbSessionStart     = "session-start"
	VerbUserPromptSubmit = "user-prompt-submit"
	VerbStop             = "stop"
	VerbSessionEnd       = "session-end"
)

// HookTable returns the hook table, in installation order. Codex has no
// hook that can replace a tool's output, so none runs per tool call: the
// files a turn writes come from its transcript and the checkpoint.
func HookTable() []agent.HookSpec {
	row := func(event, verb string, t agent.HookType) agent.HookSpec {
		return agent.HookSpec{Event: event, Verb: verb, Type: t}
	}
	return []agent.HookSpec{
		row("SessionStart", VerbSessionStart, agent.HookSessionStart),
		row("UserPromptSubmit", VerbUserPromptSubmit, agent.HookUserPromptSubmit),
		row("Stop", VerbStop, agent.HookStop),
		row("SessionEnd", VerbSessionEnd, agent.HookSessionEnd),
	}
}

// HookCommand returns the command line of verb.
func HookCommand(verb string, localDev bool) string {
	if localDev {
		return localDevCommandPrefix + verb
	}
	return commandPrefix + verb
}

// IsEntireCommand reports whether a hook command belongs to Entire.
func IsEntireCommand(command string) bool {
	return strings.HasPrefix(command, ownedPrefix) || strings.HasPrefix(command, ownedLocalDevPrefix)
}

func editor() agent.HookEditor {
	return agent.HookEditor{IsOurs: IsEntireCommand, OmitEmptyMatcher: true}
}

// hookFile is the settings file that holds the hooks.
func hookFile() agent.HookFile {
	return agent.HookFile{Path: HooksPath, Editor: editor(), Table: HookTable, Command: HookCommand, StopEvent: "Stop", StopVerb: VerbStop}
}

// InstallHooksIn merges Entire's hooks into <repoRoot>/.codex/hooks.json at
// the text level (agent.HookFile), recording what it inserts in opts.Log.
func InstallHooksIn(repoRoot string, opts agent.HookInstallOptions) (int, error) {
	return hookFile().Install(repoRoot, opts)
}

// UninstallHooksIn takes out of the file what the install recorded in log,
// byte for byte, and every Entire hook (agent.HookFile).
func UninstallHooksIn(repoRoot string, log *agent.InstallLog) error {
	return hookFile().Uninstall(repoRoot, log)
}

// HooksInstalledIn reports whether the file has Entire's Stop hook.
func HooksInstalledIn(repoRoot string) (bool, error) { return hookFile().Installed(repoRoot) }

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
