package geminicli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/jsonedit"
)

// SettingsPath is the project settings file, relative to the repository root.
const SettingsPath = ".gemini/settings.json"

// Command forms. Each command ends in "|| exit 1": Gemini CLI treats exit 1
// as a warning but any other non-zero exit (127 for a missing binary) as a
// deny, so a missing `entire` must not block the agent.
const (
	commandPrefix         = "entire hooks gemini "
	localDevCommandPrefix = "go run ${GEMINI_PROJECT_DIR}/cmd/entire/main.go hooks gemini "
	commandSuffix         = " || exit 1"
	ownedPrefix           = "entire "
	ownedLocalDevPrefix   = "go run ${GEMINI_PROJECT_DIR}/cmd/entire/main.go "
)

// Hook verbs (subcommands of `entire hooks gemini`).
const (
	VerbSessionStart        = "session-start"
	VerbSessionEnd          = "session-end"
	VerbBeforeAgent         = "before-agent"
	VerbAfterAgent          = "after-agent"
	VerbBeforeModel         = "before-model"
	VerbAfterModel          = "after-model"
	VerbBeforeToolSelection = "before-tool-selection"
	VerbBeforeTool          = "before-tool"
	VerbAfterTool           = "after-tool"
	VerbPreCompress         = "pre-compress"
	VerbNotification        = "notification"
)

// HookSpec is one row of the hook table: which Gemini CLI event and
// matcher run which `entire hooks gemini` verb, under which handler name.
type HookSpec = agent.HookSpec

// HookTable returns the hook table in installation order: the 7 handlers
// over 6 events that are installed, then the 5 verbs of SPEC 2.2 that are
// not any more. Those only logged, and Gemini CLI starts one hook process
// per event: BeforeModel, BeforeToolSelection, AfterModel and PreCompress
// fire on every model call, the model events with the whole growing
// llm_request on stdin. Callers get a fresh copy.
func HookTable() []HookSpec {
	row := func(event, matcher, name, verb string, t agent.HookType, noOp bool) HookSpec {
		return HookSpec{Event: event, Matcher: matcher, Name: name, Verb: verb, Type: t, NoOp: noOp}
	}
	return []HookSpec{
		row("SessionStart", "", "entire-session-start", VerbSessionStart, agent.HookSessionStart, false),
		row("SessionEnd", "exit", "entire-session-end-exit", VerbSessionEnd, agent.HookSessionEnd, false),
		row("SessionEnd", "logout", "entire-session-end-logout", VerbSessionEnd, agent.HookSessionEnd, false),
		row("BeforeAgent", "", "entire-before-agent", VerbBeforeAgent, agent.HookUserPromptSubmit, false),
		row("AfterAgent", "", "entire-after-agent", VerbAfterAgent, agent.HookStop, false),
		row("BeforeTool", "*", "entire-before-tool", VerbBeforeTool, agent.HookPreToolUse, false),
		row("AfterTool", "*", "entire-after-tool", VerbAfterTool, agent.HookPostToolUse, false),

		row("BeforeModel", "", "entire-before-model", VerbBeforeModel, agent.HookBeforeModel, true),
		row("AfterModel", "", "entire-after-model", VerbAfterModel, agent.HookAfterModel, true),
		row("BeforeToolSelection", "", "entire-before-tool-selection", VerbBeforeToolSelection, agent.HookBeforeToolSelection, true),
		row("PreCompress", "", "entire-pre-compress", VerbPreCompress, agent.HookPreCompress, true),
		row("Notification", "", "entire-notification", VerbNotification, agent.HookNotification, true),
	}
}

// HookCommand returns the command line of verb.
func HookCommand(verb string, localDev bool) string {
	if localDev {
		return localDevCommandPrefix + verb + commandSuffix
	}
	return commandPrefix + verb + commandSuffix
}

// IsEntireCommand reports whether a hook command belongs to Entire.
func IsEntireCommand(command string) bool {
	return strings.HasPrefix(command, ownedPrefix) || strings.HasPrefix(command, ownedLocalDevPrefix)
}

func editor() agent.HookEditor {
	return agent.HookEditor{IsOurs: IsEntireCommand, OmitEmptyMatcher: true}
}

func wantedEntries(localDev bool) []agent.HookEntry {
	return agent.HookEntries(HookTable(), func(verb string) string { return HookCommand(verb, localDev) })
}

// InstallHooksIn merges Entire's hooks into <repoRoot>/.gemini/settings.json
// and sets hooksConfig.enabled to true (Gemini CLI 0.26 runs no hooks
// without it), at the text level (see agent.SettingsFile), recording what
// it inserts in opts.Log, following the agent.HookInstaller contract. New
// files are written without a trailing newline, as Gemini CLI writes them.
// It returns the number of handlers added.
//
// It always rewrites Entire's handlers to exactly the installed rows of
// HookTable: handlers of no-op verbs and older command forms are removed
// even when the SessionStart handler is already current (SPEC 2.2 stops
// there; we do not). Kept handlers are left as they are, so their command
// strings, by which Gemini CLI remembers trusted hooks, never change.
func InstallHooksIn(repoRoot string, opts agent.HookInstallOptions) (int, error) {
	path := filepath.Join(repoRoot, SettingsPath)
	f, err := agent.ReadSettingsFile(path, false)
	if err != nil {
		return 0, err
	}
	f.Added = opts.Log.Record(SettingsPath)
	if k := f.Doc.Kind("hooksConfig"); k != 0 && k != '{' && k != 'v' {
		return 0, fmt.Errorf("%s: %w: \"hooksConfig\" is not an object", path, agent.ErrInvalidSettings)
	}
	n, err := editor().Install(f, wantedEntries(opts.LocalDev), opts.Force)
	if err != nil {
		return 0, fmt.Errorf("install hooks in %s: %w", path, err)
	}
	if err := f.Ensure('{', "hooksConfig"); err != nil {
		return 0, err
	}
	switch raw, ok := f.Doc.Get("hooksConfig", "enabled"); {
	case !ok:
		if err := f.Insert([]string{"hooksConfig"}, "enabled", []byte("true"), true); err != nil {
			return 0, err
		}
	case string(raw) != "true":
		if err := f.Doc.Replace(jsonedit.Path{"hooksConfig", "enabled"}, []byte("true")); err != nil {
			return 0, err
		}
	}
	if _, err := f.Save(); err != nil {
		return 0, err
	}
	return n, nil
}

// UninstallHooksIn takes out of <repoRoot>/.gemini/settings.json what the
// install recorded in log, byte for byte (hooksConfig.enabled included when
// the install added it), and every Entire hook; what the user wrote, before
// or since, is kept. A file enable created is removed when nothing else is
// left in it. With a nil log (an older install) hooksConfig.enabled goes
// only when no hook events are left.
func UninstallHooksIn(repoRoot string, log *agent.InstallLog) error {
	path := filepath.Join(repoRoot, SettingsPath)
	f, err := agent.ReadSettingsFile(path, false)
	if err != nil {
		return err
	}
	if !f.Exists {
		return nil
	}
	if k := f.Doc.Kind("hooks"); k != 0 && k != '{' && k != 'v' {
		return fmt.Errorf("%s: %w: \"hooks\" is not an object", path, agent.ErrInvalidSettings)
	}
	removed := editor().Remove(f.Doc, log == nil)
	rec := log.Lookup(SettingsPath)
	if rec == nil {
		if removed == 0 {
			return nil
		}
		rec = fallbackRecord(!hasEvents(f.Doc))
	}
	f.Doc.Undo(rec)
	return f.SaveOrRemove(log, SettingsPath)
}

// fallbackRecord is what an install into a missing file inserts, used to
// uninstall an install made before the log was kept; hooksConfig.enabled
// only with enabled.
func fallbackRecord(enabled bool) *jsonedit.Record {
	r := &jsonedit.Record{}
	r.Member([]string{"hooks"}, nil)
	for _, s := range HookTable() {
		r.Member([]string{"hooks", s.Event}, nil)
	}
	if enabled {
		r.Member([]string{"hooksConfig"}, nil)
		r.Member([]string{"hooksConfig", "enabled"}, []byte("true"))
	}
	return r
}

// hasEvents reports whether hooks still holds event arrays (the loader
// ignores the legacy keys enabled, disabled and notifications).
func hasEvents(d *jsonedit.Doc) bool {
	for _, k := range d.Keys("hooks") {
		if k != "enabled" && k != "disabled" && k != "notifications" {
			return true
		}
	}
	return false
}

// HooksInstalledIn reports whether any event of <repoRoot>/.gemini/settings.json
// has an Entire handler.
func HooksInstalledIn(repoRoot string) (bool, error) {
	path := filepath.Join(repoRoot, SettingsPath)
	f, err := agent.ReadSettingsFile(path, false)
	if err != nil || !f.Exists {
		return false, err
	}
	if k := f.Doc.Kind("hooks"); k != 0 && k != '{' && k != 'v' {
		return false, fmt.Errorf("%s: %w: \"hooks\" is not an object", path, agent.ErrInvalidSettings)
	}
	return editor().ContainsOurs(f.Doc), nil
}

// HookTable implements agent.HookedSpec.
func (spec) HookTable() []HookSpec { return HookTable() }

// InstallHooksIn implements agent.HookInstaller (see the package function).
func (spec) InstallHooksIn(repoRoot string, opts agent.HookInstallOptions) (int, error) {
	return InstallHooksIn(repoRoot, opts)
}

// UninstallHooksIn implements agent.HookInstaller (see the package function).
func (spec) UninstallHooksIn(repoRoot string, log *agent.InstallLog) error {
	return UninstallHooksIn(repoRoot, log)
}

// HooksInstalledIn implements agent.HookInstaller (see the package function).
func (spec) HooksInstalledIn(repoRoot string) (bool, error) { return HooksInstalledIn(repoRoot) }
