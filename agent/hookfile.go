package agent

import (
	"fmt"
	"path/filepath"

	"github.com/entirecli/entire/internal/jsonedit"
)

// HookFile is a JSON settings file of an agent whose command hooks lie in
// the common layout of Claude Code's (HookEditor) and that holds nothing
// else of Entire's (Codex's .codex/hooks.json, droid's
// .factory/settings.json). Install and Uninstall edit it at the text
// level, following the HookInstaller contract.
type HookFile struct {
	// Path is the file, relative to the repository root.
	Path string
	// Editor edits its "hooks" object.
	Editor HookEditor
	// Table returns the agent's hook table.
	Table func() []HookSpec
	// Command returns the command line of a verb.
	Command func(verb string, localDev bool) string
	// StopEvent and StopVerb name the handler whose presence means the
	// hooks are installed.
	StopEvent, StopVerb string
}

// Install merges the table's handlers into the file, recording what it
// inserts in opts.Log, and returns how many it added.
func (h HookFile) Install(repoRoot string, opts HookInstallOptions) (int, error) {
	path := filepath.Join(repoRoot, h.Path)
	f, err := ReadSettingsFile(path, true)
	if err != nil {
		return 0, err
	}
	f.Added = opts.Log.Record(h.Path)
	entries := HookEntries(h.Table(), func(verb string) string { return h.Command(verb, opts.LocalDev) })
	n, err := h.Editor.Install(f, entries, opts.Force)
	if err != nil {
		return 0, fmt.Errorf("install hooks in %s: %w", path, err)
	}
	if _, err := f.Save(); err != nil {
		return 0, err
	}
	return n, nil
}

// Uninstall takes out of the file what the install recorded in log, byte
// for byte, and every Entire handler; a file enable created is removed
// when nothing else is left in it. A missing file is not an error.
func (h HookFile) Uninstall(repoRoot string, log *InstallLog) error {
	path := filepath.Join(repoRoot, h.Path)
	f, err := ReadSettingsFile(path, true)
	if err != nil || !f.Exists {
		return err
	}
	if k := f.Doc.Kind("hooks"); k != 0 && k != '{' && k != 'v' {
		return fmt.Errorf("%s: %w: \"hooks\" is not an object", path, ErrInvalidSettings)
	}
	h.Editor.Remove(f.Doc, log == nil)
	rec := log.Lookup(h.Path)
	if rec == nil {
		// An install made before the log was kept: what an install into
		// a missing file inserts.
		rec = &jsonedit.Record{}
		rec.Member([]string{"hooks"}, nil)
		for _, s := range h.Table() {
			rec.Member([]string{"hooks", s.Event}, nil)
		}
	}
	f.Doc.Undo(rec)
	return f.SaveOrRemove(log, h.Path)
}

// Installed reports whether the file has Entire's stop handler (either
// command form). A missing file is (false, nil); an invalid one an error.
func (h HookFile) Installed(repoRoot string) (bool, error) {
	path := filepath.Join(repoRoot, h.Path)
	f, err := ReadSettingsFile(path, true)
	if err != nil || !f.Exists {
		return false, err
	}
	if k := f.Doc.Kind("hooks"); k != 0 && k != '{' && k != 'v' {
		return false, fmt.Errorf("%s: %w: \"hooks\" is not an object", path, ErrInvalidSettings)
	}
	for _, local := range []bool{false, true} {
		if h.Editor.Contains(f.Doc, h.StopEvent, h.Command(h.StopVerb, local)) {
			return true, nil
		}
	}
	return false, nil
}
