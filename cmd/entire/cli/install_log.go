package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/hooks"
	"github.com/entirecli/entire/hooks/githook"
	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/jsonedit"
	"github.com/entirecli/entire/internal/settings"
)

// installLogFile is the file in the (per-worktree) git directory where
// enable records what it added to the work tree (agent.InstallLog), for
// `entire disable --uninstall`.
const installLogFile = "entire-install.json"

func installLogPath(repo *gitrepo.Repo) string { return filepath.Join(repo.GitDir, installLogFile) }

// loadInstallLog reads the install log; nil (no error) when there is none.
func loadInstallLog(repo *gitrepo.Repo) (*agent.InstallLog, error) {
	data, err := os.ReadFile(installLogPath(repo))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read install log: %w", err)
	}
	log := &agent.InstallLog{}
	if err := json.Unmarshal(data, log); err != nil {
		return nil, fmt.Errorf("read install log %s: %w", installLogPath(repo), err)
	}
	return log, nil
}

// installTracker notes which of the paths enable may create exist before
// it runs, so that finish can record those it created.
type installTracker struct {
	repo   *gitrepo.Repo
	log    *agent.InstallLog
	before map[string]bool
}

// trackInstall opens the install log for an enable run: the existing one,
// or a new one when nothing of Entire is installed yet (no agent hooks,
// git hooks or MCP registration). An install made
// before logs were kept gets none (nil), and uninstalling it falls back to
// removing what Entire recognises as its own.
func trackInstall(repo *gitrepo.Repo) (*installTracker, error) {
	log, err := loadInstallLog(repo)
	if err != nil {
		return nil, err
	}
	if log == nil {
		// A .entire/ alone is not an install: a project may commit its
		// settings for teammates who have not enabled Entire yet.
		if st := inspectSetup(repo); len(st.Agents) == 0 && st.GitHooks == 0 && !hooks.MCPRegistered(repo.Root) {
			log = &agent.InstallLog{}
		}
	}
	t := &installTracker{repo: repo, log: log, before: map[string]bool{}}
	for _, rel := range t.paths() {
		t.before[rel] = exists(filepath.Join(repo.Root, rel))
	}
	return t, nil
}

// paths are the files and directories enable may create, relative to the
// work tree root.
func (t *installTracker) paths() []string {
	out := []string{settings.Dir, settingsGitignore, settingsRel(settings.ProjectPath), settingsRel(settings.LocalPath)}
	add := func(p string) {
		if p == "" {
			return
		}
		// Every directory above it too: .github/hooks/entire.json may
		// create .github.
		for dir := filepath.Dir(p); dir != "." && dir != "/" && dir != ""; dir = filepath.Dir(dir) {
			out = append(out, filepath.ToSlash(dir))
		}
		out = append(out, filepath.ToSlash(p))
	}
	for _, a := range registeredAgents() {
		add(a.GetHookConfigPath())
		for _, file := range enableSpec(a).Files {
			add(file.Path)
		}
	}
	if dir, err := githook.Dir(t.repo.Root); err == nil {
		if rel, err := filepath.Rel(t.repo.Root, dir); err == nil {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// finish records the paths created since trackInstall and saves the log.
func (t *installTracker) finish() error {
	if t.log == nil {
		return nil
	}
	for _, rel := range t.paths() {
		if known, ok := t.before[rel]; ok && !known && exists(filepath.Join(t.repo.Root, rel)) {
			t.log.AddCreated(rel)
		}
	}
	return saveInstallLog(t.repo, t.log)
}

// saveInstallLog writes log to the install log file.
func saveInstallLog(repo *gitrepo.Repo, log *agent.InstallLog) error {
	data, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(installLogPath(repo), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write install log: %w", err)
	}
	return nil
}

// settingsGitignore is .entire/.gitignore, relative to the work tree root.
const settingsGitignore = settings.Dir + "/.gitignore"

// settingsRel is the path of a settings file (settings.ProjectPath or
// settings.LocalPath) relative to the work tree root.
func settingsRel(pathIn func(root string) string) string {
	return filepath.ToSlash(pathIn(""))
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// removeCreatedDirs removes the directories enable created that are empty
// now, deepest first, then the install log.
func removeCreatedDirs(repo *gitrepo.Repo, log *agent.InstallLog) error {
	if log != nil {
		created := slices.Clone(log.Created)
		slices.SortFunc(created, func(a, b string) int { return len(b) - len(a) })
		for _, rel := range created {
			p := filepath.Join(repo.Root, rel)
			if info, err := os.Lstat(p); err == nil && info.IsDir() {
				_ = os.Remove(p) // only succeeds when empty
			}
		}
	}
	if err := os.Remove(installLogPath(repo)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// removeEntireDir takes .entire/ out of the work tree: the whole directory
// when enable created it (or the install predates the log), else only what
// enable added to it: the files it created, its keys in the settings files
// and its lines in .entire/.gitignore, plus entire's working directories
// (logs, tmp, metadata), so that a .entire/ the project already had (a
// teammate's committed settings) comes back as it was.
func removeEntireDir(repo *gitrepo.Repo, log *agent.InstallLog) error {
	dir := filepath.Join(repo.Root, settings.Dir)
	if log.WasCreated(settings.Dir) {
		return os.RemoveAll(dir)
	}
	var errs []error
	for _, sub := range []string{"logs", "tmp", "metadata"} {
		errs = append(errs, os.RemoveAll(filepath.Join(dir, sub)))
	}
	for _, rel := range []string{settingsRel(settings.ProjectPath), settingsRel(settings.LocalPath), settingsGitignore} {
		path := filepath.Join(repo.Root, filepath.FromSlash(rel))
		switch {
		case log.WasCreated(rel):
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		case rel == settingsGitignore:
			errs = append(errs, settings.RemoveAppended(path, log.Appended[rel]))
		default:
			errs = append(errs, undoJSON(path, log.Lookup(rel)))
		}
	}
	_ = os.Remove(dir) // only when nothing else is left in it
	return errors.Join(errs...)
}

// undoJSON takes what rec records out of the JSON file at path, keeping
// every other byte and the file's mode. A missing file is left alone.
func undoJSON(path string, rec *jsonedit.Record) error {
	f, err := agent.ReadSettingsFile(path, false)
	if err != nil || !f.Exists || !f.Doc.Undo(rec) {
		return err
	}
	_, err = f.Save()
	return err
}
