package hooks

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/gitrepo"
)

// hooksRanDir holds, under the git common directory, one empty file per
// agent whose hooks ran in the repository since they were last installed.
// Agents with a trust gate (agent.EnableSpec.Trust) skip untrusted project
// hooks silently: an install with no such file is one the user has not
// trusted yet, or not used.
const hooksRanDir = "entire-hooks-ran"

func hooksRanPath(repo *gitrepo.Repo, name agent.AgentName) string {
	return filepath.Join(repo.CommonDir, hooksRanDir, string(name))
}

// MarkHooksRan notes that a hook of the agent ran: one stat when it was
// noted before, else the file is created.
func MarkHooksRan(repo *gitrepo.Repo, name agent.AgentName) error {
	p := hooksRanPath(repo, name)
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// ResetHooksRan forgets that the agent's hooks ran: enable calls it when it
// changed the agent's hooks, which the agent must then be told to trust
// again (a trust is kept per hook command).
func ResetHooksRan(repo *gitrepo.Repo, name agent.AgentName) error {
	err := os.Remove(hooksRanPath(repo, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// UntrustedHooks returns, for each agent with a trust gate whose hooks are
// installed in the repository, the agent's trust instruction when none of
// its hooks has run since enable installed them.
func UntrustedHooks(repo *gitrepo.Repo) map[agent.AgentName]string {
	return notRun(repo, func(s agent.EnableSpec) string { return s.Trust })
}

// PluginsNotRun returns, for each agent with a NotRunYet text (one that
// loads a plugin) whose plugin is installed in the repository, that text
// when none of its hooks has run since enable installed it.
func PluginsNotRun(repo *gitrepo.Repo) map[agent.AgentName]string {
	return notRun(repo, func(s agent.EnableSpec) string {
		if s.Trust != "" {
			return ""
		}
		return s.NotRunYet
	})
}

// notRun returns, for each agent installed in the repository whose text
// (from its EnableSpec) is not empty, that text when none of its hooks
// has run since enable installed them.
func notRun(repo *gitrepo.Repo, text func(agent.EnableSpec) string) map[agent.AgentName]string {
	out := map[agent.AgentName]string{}
	for _, name := range agent.List() {
		a, err := agent.Get(name)
		if err != nil {
			continue
		}
		e, ok := a.(agent.Enabler)
		if !ok || text(e.EnableSpec()) == "" {
			continue
		}
		inst, ok := a.(agent.HookInstaller)
		if !ok {
			continue
		}
		if yes, err := inst.HooksInstalledIn(repo.Root); err != nil || !yes {
			continue
		}
		if _, err := os.Stat(hooksRanPath(repo, name)); errors.Is(err, fs.ErrNotExist) {
			out[name] = text(e.EnableSpec())
		}
	}
	return out
}
