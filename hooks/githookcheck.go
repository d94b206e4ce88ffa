package hooks

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/hooks/githook"
	"github.com/entirecli/entire/internal/gitrepo"
)

// gitHookRepairer returns the strategy's Env.EnsureGitHooks for repo: it
// rewrites entire's git hooks when they are not the current shims (a hook
// manager such as husky overwrote them, or an older entire installed
// them), warning on warn about what it moved aside. When all is in place
// it costs a few small file reads and no git call.
func gitHookRepairer(repo *gitrepo.Repo, warn io.Writer) func(localDev bool) error {
	return func(localDev bool) error {
		if githook.CurrentIn(guessHooksDir(repo), localDev) {
			return nil
		}
		_, err := githook.Install(githook.Options{RepoRoot: repo.Root, LocalDev: localDev, Warn: warn})
		return err
	}
}

// guessHooksDir guesses git's hooks directory in-process (core.hooksPath of
// the repository's config, else the common dir's hooks/), so that the usual
// case costs no git call. A path under ~ gives "" (not current: Install
// then resolves it with git).
func guessHooksDir(repo *gitrepo.Repo) string {
	if cfg, err := repo.Git.Config(); err == nil {
		if hp := cfg.Raw.Section("core").Option("hooksPath"); hp != "" {
			if strings.HasPrefix(hp, "~/") {
				return ""
			}
			if !filepath.IsAbs(hp) {
				hp = filepath.Join(repo.Root, hp)
			}
			return hp
		}
	}
	return filepath.Join(repo.CommonDir, "hooks")
}
