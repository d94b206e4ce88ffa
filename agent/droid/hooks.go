package droid

import (
	"strings"

	"github.com/entirecli/entire/agent"
)

// SettingsPath is the project settings file droid reads hooks from,
// relative to the repository root.
const SettingsPath = ".factory/settings.json"

// Command prefixes of Entire's hooks; a handler whose command starts with
// one of them is Entire's.
const (
	commandPrefix         = "entire hooks droid "
	localDevCommandPrefix = `go run "$FACTORY_PROJECT_DIR/cmd/entire/main.go" hooks droid `
	ownedPrefix           = "entire "
	ownedLocalDevPrefix   = `go run "$FACTORY_PROJECT_DIR/cmd/entire/main.go" `
)

// Hook verbs (subcommands of `entire hooks droid`).
const (
	VerbSessionStart     = "session-start"
	VerbUserPromptSubmit = "user-prompt-submit"
	VerbPreTool          = "pre-tool"
	VerbStop             = "stop"
	VerbSessionEnd       = "session-end"
)

// HookTable returns the hook table, in installation order. PreToolUse is
// there because `droid exec` sends no UserPromptSubmit: the first tool
// call of a turn starts it.
func HookTable() []agent.HookSpec {
	row := func(event, verb string, t agent.HookType) agent.HookSpec {
		return agent.HookSpec{Event: event, Verb: verb, Type: t}
	}
	return []agent.HookSpec{
		row("SessionStart", VerbSessionStart, agent.HookSessionStart),
		row("UserPromptSubmit", VerbUserPromptSubmit, agent.HookUserPromptSubmit),
		row("PreToolUse", VerbPreTool, agent.HookPreToolUse),
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

func editor() agent.HookEditor { return agent.HookEditor{IsOurs: IsEntireCommand} }

func wantedEntries(localDev bool) []agent.HookEntry {
	return agent.HookEntries(HookTable(), func(verb string) string { return HookCommand(verb, localDev) })
}

// hookFile is the settings file that holds the hooks.
func hookFile() agent.HookFile {
	return agent.HookFile{Path: SettingsPath, Editor: editor(), Table: HookTable, Command: HookCommand, StopEvent: "Stop", StopVerb: VerbStop}
}

// InstallHooksIn merges Entire's hooks into <repoRoot>/.factory/settings.json at
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
