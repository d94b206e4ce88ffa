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
	"github.com/entirecli/entire/hooks"
	"github.com/entirecli/entire/hooks/githook"
	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/settings"
)

// ignoreLocalSettings makes sure git ignores Claude Code's personal
// settings file (.claude/settings.local.json, where enable approves the
// MCP server for this user): unless a .gitignore or another exclude file
// already covers it, the path is added to the repository's info/exclude,
// which is never committed. It returns how the file is ignored, for
// enable's output.
// localSettingsExclude is what ignoreLocalSettings appends to info/exclude,
// and what `disable --uninstall` takes out again.
const localSettingsExclude = "# Personal Claude Code settings (entire enable)\n/" + hooks.ClaudeLocalSettingsPath + "\n"

// unignoreLocalSettings takes out of info/exclude the lines
// ignoreLocalSettings appended (the last time they appear), keeping every
// other byte and the file's mode.
func unignoreLocalSettings(repo *gitrepo.Repo) error {
	path := filepath.Join(repo.CommonDir, "info", "exclude")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	i := strings.LastIndex(string(data), localSettingsExclude)
	if i < 0 || (i > 0 && data[i-1] != '\n') {
		return nil
	}
	out := append(data[:i:i], data[i+len(localSettingsExclude):]...)
	if err := atomicfile.Rewrite(path, out, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func ignoreLocalSettings(ctx context.Context, repo *gitrepo.Repo) (string, error) {
	rel := hooks.ClaudeLocalSettingsPath
	if _, err := repo.RunGit(ctx, "check-ignore", "-q", "--no-index", rel); err == nil {
		return "already ignored", nil
	} else {
		var ge *gitrepo.GitError
		if !errors.As(err, &ge) || ge.ExitCode != 1 {
			return "", fmt.Errorf("check whether %s is ignored: %w", rel, err)
		}
	}
	path := filepath.Join(repo.CommonDir, "info", "exclude")
	add := localSettingsExclude
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
		row(ag.GetHookConfigPath(), "hooks, permissions.deny, env (commit it: teammates' sessions are recorded too)")
		row(hooks.ClaudeMCPPath, "the entire MCP server (commit it)")
		row(hooks.ClaudeLocalSettingsPath, "approves that server for you (personal: "+ignored+")")
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
