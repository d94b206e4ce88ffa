package cli

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

// enableSpec returns what enable does and says for ag (agent.Enabler);
// an agent without one is listed with its hook settings file alone.
func enableSpec(ag agent.Agent) agent.EnableSpec {
	if e, ok := ag.(agent.Enabler); ok {
		return e.EnableSpec()
	}
	return agent.EnableSpec{Files: []agent.SetupFile{{Path: ag.GetHookConfigPath(), What: "hooks, the entire MCP server (commit it)"}}}
}

// personalExclude is what ignorePersonalFile appends to info/exclude for
// ag's personal setup file rel, and what `disable --uninstall` takes out
// again.
func personalExclude(ag agent.Agent, rel string) string {
	return "# Personal " + string(ag.Type()) + " settings (entire enable)\n/" + rel + "\n"
}

// personalExcludes returns personalExclude of every personal setup file of
// every registered agent.
func personalExcludes() []string {
	var out []string
	for _, ag := range registeredAgents() {
		for _, file := range enableSpec(ag).Files {
			if file.Personal {
				out = append(out, personalExclude(ag, file.Path))
			}
		}
	}
	return out
}

// unignorePersonalFiles takes out of info/exclude the lines
// ignorePersonalFile appended (the last time they appear), keeping every
// other byte and the file's mode.
func unignorePersonalFiles(repo *gitrepo.Repo) error {
	path := filepath.Join(repo.CommonDir, "info", "exclude")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	out := data
	for _, ex := range personalExcludes() {
		i := strings.LastIndex(string(out), ex)
		if i < 0 || (i > 0 && out[i-1] != '\n') {
			continue
		}
		out = append(out[:i:i], out[i+len(ex):]...)
	}
	if len(out) == len(data) {
		return nil
	}
	if err := atomicfile.Rewrite(path, out, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ignorePersonalFile makes sure git ignores ag's personal setup file rel
// (Claude Code's .claude/settings.local.json, where enable approves the
// MCP server for this user): unless a .gitignore or another exclude file
// already covers it, the path is added to the repository's info/exclude,
// which is never committed. It returns how the file is ignored, for
// enable's output.
func ignorePersonalFile(ctx context.Context, repo *gitrepo.Repo, ag agent.Agent, rel string) (string, error) {
	if _, err := repo.RunGit(ctx, "check-ignore", "-q", "--no-index", rel); err == nil {
		return "already ignored", nil
	} else {
		var ge *gitrepo.GitError
		if !errors.As(err, &ge) || ge.ExitCode != 1 {
			return "", fmt.Errorf("check whether %s is ignored: %w", rel, err)
		}
	}
	path := filepath.Join(repo.CommonDir, "info", "exclude")
	add := personalExclude(ag, rel)
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
// and whether to commit it; ignored says how each personal file of spec is
// ignored.
func printEnableFiles(w io.Writer, spec agent.EnableSpec, ignored map[string]string, target, hooksDir string) {
	fmt.Fprintln(w, "Files:")
	row := func(path, what string) { fmt.Fprintf(w, "  %-28s %s\n", path, what) }
	for _, file := range spec.Files {
		if file.Personal {
			row(file.Path, file.What+" (personal: "+ignored[file.Path]+")")
			continue
		}
		row(file.Path, file.What)
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
