package copilotcli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/jsonedit"
)

// HooksPath is the repository hooks file Entire writes, relative to the
// repository root. Copilot CLI loads every .json file of .github/hooks.
const HooksPath = ".github/hooks/entire.json"

// Command forms. Copilot runs the "bash" command of a handler with the
// repository as its working directory and COPILOT_PROJECT_DIR set.
const (
	commandPrefix         = "entire hooks copilot-cli "
	localDevCommandPrefix = `go run "$COPILOT_PROJECT_DIR/cmd/entire/main.go" hooks copilot-cli `
	ownedPrefix           = "entire "
	ownedLocalDevPrefix   = `go run "$COPILOT_PROJECT_DIR/cmd/entire/main.go" `
)

// hookTimeoutSec bounds each hook.
const hookTimeoutSec = 30

// Hook verbs (subcommands of `entire hooks copilot-cli`).
const (
	VerbSessionStart = "session-start"
	VerbPromptSubmit = "user-prompt-submitted"
	VerbAgentStop    = "agent-stop"
	VerbSessionEnd   = "session-end"
)

// HookTable returns the hook table, in installation order. Copilot's tool
// hooks cannot replace a tool's output and its tools' files are in the
// events file: none runs per tool call.
func HookTable() []agent.HookSpec {
	row := func(event, verb string, t agent.HookType) agent.HookSpec {
		return agent.HookSpec{Event: event, Verb: verb, Type: t}
	}
	return []agent.HookSpec{
		row("sessionStart", VerbSessionStart, agent.HookSessionStart),
		row("userPromptSubmitted", VerbPromptSubmit, agent.HookUserPromptSubmit),
		row("agentStop", VerbAgentStop, agent.HookStop),
		row("sessionEnd", VerbSessionEnd, agent.HookSessionEnd),
	}
}

// eventOf returns the Copilot event of a hook type.
func eventOf(t agent.HookType) string {
	for _, s := range HookTable() {
		if s.Type == t {
			return s.Event
		}
	}
	return ""
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

// handler returns the handler object of verb.
func handler(verb string, localDev bool) []byte {
	o := &agent.Object{}
	o.Set("type", agent.MustString("command"))
	o.Set("bash", agent.MustString(HookCommand(verb, localDev)))
	o.Set("timeoutSec", []byte(fmt.Sprint(hookTimeoutSec)))
	return o.Compact()
}

// handlerCommand returns the "bash" command of a handler.
func handlerCommand(raw json.RawMessage) string {
	var h struct {
		Bash string `json:"bash"`
	}
	_ = json.Unmarshal(raw, &h)
	return h.Bash
}

// removeOurs removes every handler whose command is Entire's (except
// keep) from the event arrays of d, and reports how many it removed.
func removeOurs(d *jsonedit.Doc, keep map[string]bool) int {
	n := 0
	if d.Kind("hooks") != '{' {
		return 0
	}
	for _, ev := range d.Keys("hooks") {
		if d.Kind("hooks", ev) != '[' {
			continue
		}
		for i := d.Len("hooks", ev) - 1; i >= 0; i-- {
			raw, _ := d.Get("hooks", ev, i)
			if c := handlerCommand(raw); IsEntireCommand(c) && !keep[ev+"\x00"+c] {
				if ok, _ := d.Remove(jsonedit.Path{"hooks", ev, i}); ok {
					n++
				}
			}
		}
	}
	return n
}

// InstallHooksIn writes Entire's handlers into
// <repoRoot>/.github/hooks/entire.json ({"version": 1, "hooks": {...}}) at
// the text level, recording what it inserts in opts.Log, following the
// agent.HookInstaller contract.
func InstallHooksIn(repoRoot string, opts agent.HookInstallOptions) (int, error) {
	path := filepath.Join(repoRoot, HooksPath)
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil {
		return 0, err
	}
	f.Added = opts.Log.Record(HooksPath)
	if f.Doc.Kind("version") == 0 {
		if err := f.Insert(nil, "version", []byte("1"), true); err != nil {
			return 0, err
		}
	}
	if err := f.Ensure('{', "hooks"); err != nil {
		return 0, err
	}
	want := map[string]bool{}
	for _, s := range HookTable() {
		want[s.Event+"\x00"+HookCommand(s.Verb, opts.LocalDev)] = true
	}
	if opts.Force {
		removeOurs(f.Doc, nil)
	} else {
		removeOurs(f.Doc, want) // the other form (local-dev or not), older verbs
	}
	added := 0
	for _, s := range HookTable() {
		if err := f.Ensure('[', "hooks", s.Event); err != nil {
			return 0, err
		}
		present := false
		for i := range f.Doc.Len("hooks", s.Event) {
			raw, _ := f.Doc.Get("hooks", s.Event, i)
			if handlerCommand(raw) == HookCommand(s.Verb, opts.LocalDev) {
				present = true
			}
		}
		if present {
			continue
		}
		if err := f.Append([]string{"hooks", s.Event}, handler(s.Verb, opts.LocalDev)); err != nil {
			return 0, err
		}
		added++
	}
	if _, err := f.Save(); err != nil {
		return 0, err
	}
	return added, nil
}

// UninstallHooksIn takes out of <repoRoot>/.github/hooks/entire.json what
// the install recorded in log, byte for byte, and every Entire handler; a
// file enable created is removed when nothing else is left in it.
func UninstallHooksIn(repoRoot string, log *agent.InstallLog) error {
	path := filepath.Join(repoRoot, HooksPath)
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil || !f.Exists {
		return err
	}
	if k := f.Doc.Kind("hooks"); k != 0 && k != '{' && k != 'v' {
		return fmt.Errorf("%s: %w: \"hooks\" is not an object", path, agent.ErrInvalidSettings)
	}
	rec := log.Lookup(HooksPath)
	if rec == nil {
		rec = &jsonedit.Record{}
		rec.Member([]string{"hooks"}, nil)
		for _, s := range HookTable() {
			rec.Member([]string{"hooks", s.Event}, nil)
		}
	}
	removeOurs(f.Doc, nil)
	f.Doc.Undo(rec)
	if log == nil && reflect.DeepEqual(f.Doc.Keys(), []string{"version"}) {
		// An older install's file with nothing but its version left.
		_, _ = f.Doc.Remove(jsonedit.Path{"version"})
	}
	return f.SaveOrRemove(log, HooksPath)
}

// HooksInstalledIn reports whether <repoRoot>/.github/hooks/entire.json
// has Entire's agentStop handler.
func HooksInstalledIn(repoRoot string) (bool, error) {
	path := filepath.Join(repoRoot, HooksPath)
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil || !f.Exists {
		return false, err
	}
	if k := f.Doc.Kind("hooks"); k != 0 && k != '{' && k != 'v' {
		return false, fmt.Errorf("%s: %w: \"hooks\" is not an object", path, agent.ErrInvalidSettings)
	}
	if f.Doc.Kind("hooks", "agentStop") != '[' {
		return false, nil
	}
	for i := range f.Doc.Len("hooks", "agentStop") {
		raw, _ := f.Doc.Get("hooks", "agentStop", i)
		for _, local := range []bool{false, true} {
			if handlerCommand(raw) == HookCommand(VerbAgentStop, local) {
				return true, nil
			}
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
