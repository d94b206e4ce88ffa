package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/hooks/githook"
	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/settings"
)

// mcpRegistration returns where enable registers the MCP server for a (the
// zero value when a starts no project MCP servers).
func mcpRegistration(a agent.Agent) agent.MCPRegistration {
	if h, ok := a.(agent.MCPHost); ok {
		return h.MCPRegistration()
	}
	return agent.MCPRegistration{}
}

// mcpApprovalFile returns the personal settings file in which enable
// approves the MCP server for a's user (Claude Code's
// .claude/settings.local.json), "" when a needs no approval.
func mcpApprovalFile(a agent.Agent) string { return mcpRegistration(a).ApprovalFile }

// localSettingsExclude is what ignoreLocalSettings appends to info/exclude
// for a's approval file, and what `disable --uninstall` takes out again.
func localSettingsExclude(a agent.Agent) string {
	return "# Personal " + string(a.Type()) + " settings (entire enable)\n/" + mcpApprovalFile(a) + "\n"
}

// unignoreLocalSettings takes out of info/exclude the lines
// ignoreLocalSettings appended for any registered agent (the last time they
// appear), keeping every other byte and the file's mode.
func unignoreLocalSettings(repo *gitrepo.Repo) error {
	path := filepath.Join(repo.CommonDir, "info", "exclude")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	out := data
	for _, name := range agent.List() {
		a, err := agent.Get(name)
		if err != nil || mcpApprovalFile(a) == "" {
			continue
		}
		block := localSettingsExclude(a)
		i := strings.LastIndex(string(out), block)
		if i < 0 || (i > 0 && out[i-1] != '\n') {
			continue
		}
		out = append(out[:i:i], out[i+len(block):]...)
	}
	if len(out) == len(data) {
		return nil
	}
	if err := atomicfile.Rewrite(path, out, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ignoreLocalSettings makes sure git ignores a's personal settings file
// (mcpApprovalFile, where enable approves the MCP server for this user):
// unless a .gitignore or another exclude file already covers it, the path
// is added to the repository's info/exclude, which is never committed. It
// returns how the file is ignored, for enable's output.
func ignoreLocalSettings(ctx context.Context, repo *gitrepo.Repo, a agent.Agent) (string, error) {
	rel := mcpApprovalFile(a)
	if _, err := repo.RunGit(ctx, "check-ignore", "-q", "--no-index", rel); err == nil {
		return "already ignored", nil
	} else {
		var ge *gitrepo.GitError
		if !errors.As(err, &ge) || ge.ExitCode != 1 {
			return "", fmt.Errorf("check whether %s is ignored: %w", rel, err)
		}
	}
	path := filepath.Join(repo.CommonDir, "info", "exclude")
	add := localSettingsExclude(a)
	if data, err := os.ReadFile(path); err == nil && len(data) > 0 && !strings.HasSuffix(string(data), "\n") {
		add = "\n" + add
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	// Appended in place, as a user edits this file: nothing else in it
	// is rewritten.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := f.WriteString(add)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return "", fmt.Errorf("write %s: %w", path, werr)
	}
	return "ignored through .git/info/exclude", nil
}

// printEnableFiles lists every file enable wrote or keeps, what it holds
// and whether to commit it; ignored says how .claude/settings.local.json
// is ignored ("" when it is not Claude Code's turn).
func printEnableFiles(w io.Writer, ag agent.Agent, target, hooksDir, ignored string) {
	fmt.Fprintln(w, "Files:")
	row := func(path, what string) { fmt.Fprintf(w, "  %-28s %s\n", path, what) }
	switch ag.Name() {
	case agent.AgentNameClaudeCode:
		reg := mcpRegistration(ag)
		row(ag.GetHookConfigPath(), "hooks, permissions.deny, env (commit it: teammates' sessions are recorded too)")
		row(reg.ServersFile, "the entire MCP server (commit it)")
		row(reg.ApprovalFile, "approves that server for you (personal: "+ignored+")")
	default:
		row(ag.GetHookConfigPath(), "hooks, the entire MCP server (commit it)")
	}
	rel := filepath.ToSlash(filepath.Join(settings.Dir, filepath.Base(target)))
	if filepath.Base(target) == "settings.local.json" {
		row(rel, "your settings (personal: ignored by .entire/.gitignore)")
	} else {
		row(rel, "project settings (commit it)")
	}
	row(filepath.ToSlash(filepath.Join(settings.Dir, ".gitignore")), "keeps entire's local files out of git (commit it)")
	row(hooksDir+"/", "git hooks "+strings.Join(githook.Names(), ", ")+" (not versioned)")
	fmt.Fprintln(w, "The agent runs `entire` from its PATH: install it where the agent's process finds it.")
}
