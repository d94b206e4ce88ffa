package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/atomicfile"
	"github.com/entirecli/entire/gitrepo"
	"github.com/entirecli/entire/hooks"
	"github.com/entirecli/entire/hooks/githook"
	"github.com/entirecli/entire/settings"
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
// or a new one when nothing of Entire is installed yet. An install made
// before logs were kept gets none (nil), and uninstalling it falls back to
// removing what Entire recognises as its own.
func trackInstall(repo *gitrepo.Repo) (*installTracker, error) {
	log, err := loadInstallLog(repo)
	if err != nil {
		return nil, err
	}
	if log == nil {
		if st := inspectSetup(repo); !st.EntireDir && len(st.Agents) == 0 && st.GitHooks == 0 && !hooks.MCPRegistered(repo.Root) {
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
	out := []string{settings.Dir, hooks.ClaudeMCPPath, filepath.ToSlash(filepath.Dir(hooks.ClaudeLocalSettingsPath)), hooks.ClaudeLocalSettingsPath}
	for _, name := range agent.List() {
		if a, err := agent.Get(name); err == nil {
			if p := a.GetHookConfigPath(); p != "" {
				out = append(out, filepath.ToSlash(filepath.Dir(p)), filepath.ToSlash(p))
			}
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
	data, err := json.MarshalIndent(t.log, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(installLogPath(t.repo), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write install log: %w", err)
	}
	return nil
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
