package geminicli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/agent"
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

// HookSpec is one row of the hook table.
type HookSpec struct {
	Event   string
	Matcher string // "" is omitted from the group
	Name    string // the handler's mandatory `name`
	Verb    string
	Type    agent.HookType
	// TimeoutMS is the handler timeout in milliseconds; 0 omits it (Gemini
	// CLI's default, 60000).
	TimeoutMS int
	// NoOp marks a verb that is no longer installed. Installs written before
	// still call it, so it stays accepted and does nothing (see
	// Agent.NoOpHookVerbs); install removes its handler.
	NoOp bool
}

// HookTable returns the hook table in installation order: the 7 handlers
// over 6 events that are installed, then the 5 verbs of SPEC 2.2 that are
// not any more. Those only logged, and Gemini CLI starts one hook process
// per event: BeforeModel, BeforeToolSelection, AfterModel and PreCompress
// fire on every model call, the model events with the whole growing
// llm_request on stdin. Callers get a fresh copy.
func HookTable() []HookSpec {
	return []HookSpec{
		{"SessionStart", "", "entire-session-start", VerbSessionStart, agent.HookSessionStart, 0, false},
		{"SessionEnd", "exit", "entire-session-end-exit", VerbSessionEnd, agent.HookSessionEnd, 0, false},
		{"SessionEnd", "logout", "entire-session-end-logout", VerbSessionEnd, agent.HookSessionEnd, 0, false},
		{"BeforeAgent", "", "entire-before-agent", VerbBeforeAgent, agent.HookUserPromptSubmit, 0, false},
		{"AfterAgent", "", "entire-after-agent", VerbAfterAgent, agent.HookStop, 0, false},
		{"BeforeTool", "*", "entire-before-tool", VerbBeforeTool, agent.HookPreToolUse, 0, false},
		{"AfterTool", "*", "entire-after-tool", VerbAfterTool, agent.HookPostToolUse, 0, false},

		{"BeforeModel", "", "entire-before-model", VerbBeforeModel, agent.HookBeforeModel, 0, true},
		{"AfterModel", "", "entire-after-model", VerbAfterModel, agent.HookAfterModel, 0, true},
		{"BeforeToolSelection", "", "entire-before-tool-selection", VerbBeforeToolSelection, agent.HookBeforeToolSelection, 0, true},
		{"PreCompress", "", "entire-pre-compress", VerbPreCompress, agent.HookPreCompress, 0, true},
		{"Notification", "", "entire-notification", VerbNotification, agent.HookNotification, 0, true},
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
	var out []agent.HookEntry
	for _, s := range HookTable() {
		if s.NoOp {
			continue
		}
		cmd := HookCommand(s.Verb, localDev)
		h := &agent.Object{}
		h.Set("name", agent.MustString(s.Name))
		h.Set("type", agent.MustString("command"))
		h.Set("command", agent.MustString(cmd))
		if s.TimeoutMS > 0 {
			h.Set("timeout", []byte(fmt.Sprint(s.TimeoutMS)))
		}
		out = append(out, agent.HookEntry{Event: s.Event, Matcher: s.Matcher, Command: cmd, Handler: h.Compact()})
	}
	return out
}

// GetHookNames returns the installed verbs.
func (a *Agent) GetHookNames() []string {
	var names []string
	for _, s := range HookTable() {
		if !s.NoOp {
			names = agent.AppendUnique(names, s.Verb)
		}
	}
	return names
}

// NoOpHookVerbs returns the verbs that are no longer installed but still
// accepted from older installs: before-model, after-model,
// before-tool-selection, pre-compress and notification. A call to one of
// them only answers "{}".
func (a *Agent) NoOpHookVerbs() []string {
	var names []string
	for _, s := range HookTable() {
		if s.NoOp {
			names = agent.AppendUnique(names, s.Verb)
		}
	}
	return names
}

// HookTypeForVerb maps a verb (installed or no-op) to its hook type.
func (a *Agent) HookTypeForVerb(verb string) (agent.HookType, bool) {
	for _, s := range HookTable() {
		if s.Verb == verb {
			return s.Type, true
		}
	}
	return "", false
}

// GetSupportedHooks returns the hook types of the installed verbs.
func (a *Agent) GetSupportedHooks() []agent.HookType {
	var out []agent.HookType
	seen := map[agent.HookType]bool{}
	for _, s := range HookTable() {
		if !s.NoOp && !seen[s.Type] {
			seen[s.Type] = true
			out = append(out, s.Type)
		}
	}
	return out
}

// InstallHooksIn merges Entire's hooks into <repoRoot>/.gemini/settings.json
// and sets hooksConfig.enabled to true (Gemini CLI 0.26 runs no hooks
// without it), following the agent.HookInstaller contract. New files are
// written without a trailing newline, as Gemini CLI writes them. It returns
// the number of handlers added.
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
	hooks, err := agent.SubObject(f.Root, "hooks", path)
	if err != nil {
		return 0, err
	}
	cfg, err := agent.SubObject(f.Root, "hooksConfig", path)
	if err != nil {
		return 0, err
	}
	n, err := editor().Install(hooks, wantedEntries(opts.LocalDev), opts.Force)
	if err != nil {
		return 0, fmt.Errorf("install hooks in %s: %w", path, err)
	}
	if raw, ok := cfg.Get("enabled"); !ok || string(raw) != "true" {
		cfg.Set("enabled", []byte("true"))
		f.Root.SetObject("hooksConfig", cfg)
	}
	f.Root.SetObject("hooks", hooks)
	if _, err := f.Save(); err != nil {
		return 0, err
	}
	return n, nil
}

// UninstallHooksIn removes Entire's hooks from <repoRoot>/.gemini/settings.json.
// When that leaves no hook events at all, it also removes
// hooksConfig.enabled (and an emptied hooksConfig). When foreign hooks remain, enabled stays, as
// they need it: a file whose foreign hooks ran without hooksConfig.enabled
// (Gemini CLI 0.27+ defaults it to true) therefore keeps the key after an
// install/uninstall round trip. A file left empty is removed.
func UninstallHooksIn(repoRoot string) error {
	path := filepath.Join(repoRoot, SettingsPath)
	f, err := agent.ReadSettingsFile(path, false)
	if err != nil {
		return err
	}
	if !f.Exists {
		return nil
	}
	if _, ok := f.Root.Get("hooks"); !ok {
		return nil
	}
	hooks, err := agent.SubObject(f.Root, "hooks", path)
	if err != nil {
		return err
	}
	if editor().Remove(hooks) == 0 {
		return nil
	}
	if hooks.Len() == 0 {
		f.Root.Delete("hooks")
	} else {
		f.Root.SetObject("hooks", hooks)
	}
	if hasEvents(hooks) {
		return f.SaveOrRemove()
	}
	if _, ok := f.Root.Get("hooksConfig"); ok {
		cfg, err := agent.SubObject(f.Root, "hooksConfig", path)
		if err != nil {
			return err
		}
		if raw, ok := cfg.Get("enabled"); ok && string(raw) == "true" {
			cfg.Delete("enabled")
			if cfg.Len() == 0 {
				f.Root.Delete("hooksConfig")
			} else {
				f.Root.SetObject("hooksConfig", cfg)
			}
		}
	}
	return f.SaveOrRemove()
}

// hasEvents reports whether hooks still holds event arrays (the loader
// ignores the legacy keys enabled, disabled and notifications).
func hasEvents(hooks *agent.Object) bool {
	for _, k := range hooks.Keys() {
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
	hooks, err := agent.SubObject(f.Root, "hooks", path)
	if err != nil {
		return false, err
	}
	return editor().ContainsOurs(hooks), nil
}

// InstallHooksIn implements agent.HookInstaller.
func (a *Agent) InstallHooksIn(repoRoot string, opts agent.HookInstallOptions) (int, error) {
	return InstallHooksIn(repoRoot, opts)
}

// UninstallHooksIn implements agent.HookInstaller.
func (a *Agent) UninstallHooksIn(repoRoot string) error { return UninstallHooksIn(repoRoot) }

// HooksInstalledIn implements agent.HookInstaller.
func (a *Agent) HooksInstalledIn(repoRoot string) (bool, error) { return HooksInstalledIn(repoRoot) }

// InstallHooks installs the hooks in the repository containing the working
// directory (see InstallHooksIn).
func (a *Agent) InstallHooks(localDev bool, force bool) (int, error) {
	root, err := agent.RepoRoot()
	if err != nil {
		return 0, err
	}
	return InstallHooksIn(root, agent.HookInstallOptions{LocalDev: localDev, Force: force})
}

// UninstallHooks removes the hooks from the repository containing the
// working directory.
func (a *Agent) UninstallHooks() error {
	root, err := agent.RepoRoot()
	if err != nil {
		return err
	}
	return UninstallHooksIn(root)
}

// AreHooksInstalled reports whether hooks are installed in the repository
// containing the working directory; errors count as not installed.
func (a *Agent) AreHooksInstalled() bool {
	root, err := agent.RepoRoot()
	if err != nil {
		return false
	}
	ok, _ := HooksInstalledIn(root)
	return ok
}
