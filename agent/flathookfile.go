package agent

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"

	"github.com/entirecli/entire/internal/jsonedit"
)

// FlatHookFile is a hooks file whose events hold flat arrays of handler
// objects, {"version": 1, "hooks": {"<event>": [{<CommandKey>: "…", …}]}}:
// Copilot CLI's .github/hooks/*.json ("bash") and Cursor's
// .cursor/hooks.json ("command"). Install and Uninstall edit it at the
// text level, following the HookInstaller contract; handlers whose command
// is not Entire's and every other member are kept byte for byte.
type FlatHookFile struct {
	// Path is the file, relative to the repository root.
	Path string
	// CommandKey is the handler member holding the command line.
	CommandKey string
	// Table returns the agent's hook table (NoOp rows are not installed).
	Table func() []HookSpec
	// Command returns the command line of a verb.
	Command func(verb string, localDev bool) string
	// Handler returns the handler object of a verb (compact JSON).
	Handler func(verb string, localDev bool) []byte
	// IsOurs reports whether a command line is Entire's.
	IsOurs func(command string) bool
	// StopEvent and StopVerb name the handler whose presence means the
	// hooks are installed.
	StopEvent, StopVerb string
}

// command returns the handler's command line.
func (h FlatHookFile) command(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var c string
	_ = json.Unmarshal(m[h.CommandKey], &c)
	return c
}

// installed returns the table's installed rows.
func (h FlatHookFile) installed() []HookSpec {
	var out []HookSpec
	for _, s := range h.Table() {
		if !s.NoOp {
			out = append(out, s)
		}
	}
	return out
}

// removeOurs removes every handler whose command is Entire's (except
// keep, by event and command) from the event arrays of d.
func (h FlatHookFile) removeOurs(d *jsonedit.Doc, keep map[string]bool) {
	if d.Kind("hooks") != '{' {
		return
	}
	for _, ev := range d.Keys("hooks") {
		if d.Kind("hooks", ev) != '[' {
			continue
		}
		for i := d.Len("hooks", ev) - 1; i >= 0; i-- {
			raw, _ := d.Get("hooks", ev, i)
			if c := h.command(raw); h.IsOurs(c) && !keep[ev+"\x00"+c] {
				_, _ = d.Remove(jsonedit.Path{"hooks", ev, i})
			}
		}
	}
}

// checkHooks refuses a file whose "hooks" is there but no object.
func checkHooks(path string, f *SettingsFile) error {
	if k := f.Doc.Kind("hooks"); k != 0 && k != '{' && k != 'v' {
		return fmt.Errorf("%s: %w: \"hooks\" is not an object", path, ErrInvalidSettings)
	}
	return nil
}

// Install writes the table's handlers into the file (with "version": 1
// when it has none), recording what it inserts in opts.Log, and returns
// how many it added.
func (h FlatHookFile) Install(repoRoot string, opts HookInstallOptions) (int, error) {
	path := filepath.Join(repoRoot, h.Path)
	f, err := ReadSettingsFile(path, true)
	if err != nil {
		return 0, err
	}
	if err := checkHooks(path, f); err != nil {
		return 0, err
	}
	f.Added = opts.Log.Record(h.Path)
	if f.Doc.Kind("version") == 0 {
		if err := f.Insert(nil, "version", []byte("1"), true); err != nil {
			return 0, err
		}
	}
	if err := f.Ensure('{', "hooks"); err != nil {
		return 0, err
	}
	want := map[string]bool{}
	for _, s := range h.installed() {
		want[s.Event+"\x00"+h.Command(s.Verb, opts.LocalDev)] = true
	}
	if opts.Force {
		h.removeOurs(f.Doc, nil)
	} else {
		h.removeOurs(f.Doc, want) // the other form (local-dev or not), older verbs
	}
	added := 0
	for _, s := range h.installed() {
		if err := f.Ensure('[', "hooks", s.Event); err != nil {
			return 0, err
		}
		cmd := h.Command(s.Verb, opts.LocalDev)
		present := false
		for i := range f.Doc.Len("hooks", s.Event) {
			raw, _ := f.Doc.Get("hooks", s.Event, i)
			present = present || h.command(raw) == cmd
		}
		if present {
			continue
		}
		if err := f.Append([]string{"hooks", s.Event}, h.Handler(s.Verb, opts.LocalDev)); err != nil {
			return 0, err
		}
		added++
	}
	if _, err := f.Save(); err != nil {
		return 0, err
	}
	return added, nil
}

// Uninstall takes out of the file what the install recorded in log, byte
// for byte, and every Entire handler; a file enable created is removed
// when nothing else is left in it.
func (h FlatHookFile) Uninstall(repoRoot string, log *InstallLog) error {
	path := filepath.Join(repoRoot, h.Path)
	f, err := ReadSettingsFile(path, true)
	if err != nil || !f.Exists {
		return err
	}
	if err := checkHooks(path, f); err != nil {
		return err
	}
	rec := log.Lookup(h.Path)
	if rec == nil {
		rec = &jsonedit.Record{}
		rec.Member([]string{"hooks"}, nil)
		for _, s := range h.Table() {
			rec.Member([]string{"hooks", s.Event}, nil)
		}
	}
	h.removeOurs(f.Doc, nil)
	f.Doc.Undo(rec)
	if log == nil && reflect.DeepEqual(f.Doc.Keys(), []string{"version"}) {
		// An older install's file with nothing but its version left.
		_, _ = f.Doc.Remove(jsonedit.Path{"version"})
	}
	return f.SaveOrRemove(log, h.Path)
}

// Installed reports whether the file has Entire's stop handler.
func (h FlatHookFile) Installed(repoRoot string) (bool, error) {
	path := filepath.Join(repoRoot, h.Path)
	f, err := ReadSettingsFile(path, true)
	if err != nil || !f.Exists {
		return false, err
	}
	if err := checkHooks(path, f); err != nil {
		return false, err
	}
	if f.Doc.Kind("hooks", h.StopEvent) != '[' {
		return false, nil
	}
	for i := range f.Doc.Len("hooks", h.StopEvent) {
		raw, _ := f.Doc.Get("hooks", h.StopEvent, i)
		for _, local := range []bool{false, true} {
			if h.command(raw) == h.Command(h.StopVerb, local) {
				return true, nil
			}
		}
	}
	return false, nil
}
