package cli

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/hooks/githook"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/settings"
)

// setupState is what of Entire is installed in a repository, as far as it
// can be seen cheaply (a few stats and small file reads, two git calls).
type setupState struct {
	// EntireDir is true when <root>/.entire exists.
	EntireDir bool
	// SettingsFiles are the settings files that exist, relative to the root
	// with forward slashes (".entire/settings.json", ...).
	SettingsFiles []string
	// Agents are the agents whose hooks are installed.
	Agents []agent.Agent
	// HooksDir is the directory git runs hooks from ("" if unknown).
	HooksDir string
	// GitHooks counts our shims (files carrying githook.Marker) in HooksDir.
	GitHooks int
}

// inspectSetup looks at what is installed in repo. Errors (an unreadable
// agent settings file, a failing git call) count as "not installed".
func inspectSetup(repo *gitrepo.Repo) setupState {
	var st setupState
	if info, err := os.Stat(filepath.Join(repo.Root, settings.Dir)); err == nil && info.IsDir() {
		st.EntireDir = true
	}
	for _, p := range []string{settings.ProjectPath(repo.Root), settings.LocalPath(repo.Root)} {
		if _, err := os.Stat(p); err == nil {
			st.SettingsFiles = append(st.SettingsFiles, settings.Dir+"/"+filepath.Base(p))
		}
	}
	for _, name := range agent.List() {
		a, err := agent.Get(name)
		if err != nil {
			continue
		}
		if inst, ok := a.(agent.HookInstaller); ok {
			if yes, err := inst.HooksInstalledIn(repo.Root); err == nil && yes {
				st.Agents = append(st.Agents, a)
			}
		}
	}
	if dir, err := githook.Dir(repo.Root); err == nil {
		st.HooksDir = dir
		for _, hook := range githook.Names() {
			data, err := os.ReadFile(filepath.Join(dir, hook))
			if err == nil && bytes.Contains(data, []byte(githook.Marker)) {
				st.GitHooks++
			}
		}
	}
	return st
}

// complete reports whether Entire is fully set up (SPEC 1.3 interactive
// mode): enabled in settings s (read from existing files), some agent's hooks
// installed, all the git hooks present and .entire/ existing.
func (st setupState) complete(s *settings.Settings) bool {
	return st.EntireDir && len(st.SettingsFiles) > 0 && s.Enabled && len(st.Agents) > 0 &&
		st.GitHooks == len(githook.Names())
}

// agentTypes returns the type labels of the agents with hooks installed.
func (st setupState) agentTypes() []string {
	out := make([]string, 0, len(st.Agents))
	for _, a := range st.Agents {
		out = append(out, string(a.Type()))
	}
	return out
}

// configFiles returns SettingsFiles.
func (st setupState) configFiles() []string { return st.SettingsFiles }
