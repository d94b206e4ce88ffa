package droid

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/jsonedit"
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

// InstallHooksIn merges Entire's hooks into <repoRoot>/.factory/settings.json
// at the text level, recording what it inserts in opts.Log, following the
// agent.HookInstaller contract.
func InstallHooksIn(repoRoot string, opts agent.HookInstallOptions) (int, error) {
	path := filepath.Join(repoRoot, SettingsPath)
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil {
		return 0, err
	}
	f.Added = opts.Log.Record(SettingsPath)
	n, err := editor().Install(f, wantedEntries(opts.LocalDev), opts.Force)
	if err != nil {
		return 0, fmt.Errorf("install hooks in %s: %w", path, err)
	}
	if _, err := f.Save(); err != nil {
		return 0, err
	}
	return n, nil
}

// UninstallHooksIn takes out of <repoRoot>/.factory/settings.json what the
// install recorded in log, byte for byte, and every Entire hook; a file
// enable created is removed when nothing else is left in it.
func UninstallHooksIn(repoRoot string, log *agent.InstallLog) error {
	path := filepath.Join(repoRoot, SettingsPath)
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil || !f.Exists {
		return err
	}
	if k := f.Doc.Kind("hooks"); k != 0 && k != '{' && k != 'v' {
		return fmt.Errorf("%s: %w: \"hooks\" is not an object", path, agent.ErrInvalidSettings)
	}
	editor().Remove(f.Doc, log == nil)
	rec := log.Lookup(SettingsPath)
	if rec == nil {
		rec = &jsonedit.Record{}
		rec.Member([]string{"hooks"}, nil)
		for _, s := range HookTable() {
			rec.Member([]string{"hooks", s.Event}, nil)
		}
	}
	f.Doc.Undo(rec)
	return f.SaveOrRemove(log, SettingsPath)
}

// HooksInstalledIn reports whether <repoRoot>/.factory/settings.json has
// Entire's Stop hook.
func HooksInstalledIn(repoRoot string) (bool, error) {
	path := filepath.Join(repoRoot, SettingsPath)
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil || !f.Exists {
		return false, err
	}
	if k := f.Doc.Kind("hooks"); k != 0 && k != '{' && k != 'v' {
		return false, fmt.Errorf("%s: %w: \"hooks\" is not an object", path, agent.ErrInvalidSettings)
	}
	for _, local := range []bool{false, true} {
		if editor().Contains(f.Doc, "Stop", HookCommand(VerbStop, local)) {
			return true, nil
		}
	}
	return false, nil
}

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
