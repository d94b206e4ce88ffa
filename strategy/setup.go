package strategy

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/hooks/githook"
)

// ensureSetup re-creates what a turn needs if it went missing (SPEC 2.6
// turn start, step 2): the metadata branch and our git hooks, which a hook
// manager such as husky may have overwritten (a foreign pre-push would
// silently stop the metadata push) or an older entire installed as older
// shims. Both strategies call it at every turn start; it costs a few small
// file reads when all is in place. Failures are logged, never returned.
func (e *Env) ensureSetup(ctx context.Context) {
	repo := e.Repo
	if tip, err := repo.ReadRef(checkpoint.MetadataRef); err == nil && tip.IsZero() {
		if created, err := e.checkpoints().EnsureBranch(ctx); err != nil {
			e.Log.Warn("create metadata branch", "error", err)
		} else if created {
			e.printf("✓ Created orphan branch '%s' for session metadata\n", checkpoint.MetadataBranch)
		}
	}
	localDev := e.Settings != nil && e.Settings.LocalDev
	if githook.CurrentIn(e.hooksDir(), localDev) {
		return
	}
	if _, err := githook.Install(githook.Options{RepoRoot: repo.Root, LocalDev: localDev, Warn: e.Stderr}); err != nil {
		e.Log.Warn("reinstall git hooks", "error", err)
	}
}

// hooksDir guesses git's hooks directory in-process (core.hooksPath of the
// repository's config, else the common dir's hooks/), so that the usual
// case costs no git call.
func (e *Env) hooksDir() string {
	repo := e.Repo
	if cfg, err := repo.Git.Config(); err == nil {
		if hp := cfg.Raw.Section("core").Option("hooksPath"); hp != "" {
			if strings.HasPrefix(hp, "~/") {
				return "" // let githook resolve it
			}
			if !filepath.IsAbs(hp) {
				hp = filepath.Join(repo.Root, hp)
			}
			return hp
		}
	}
	return filepath.Join(repo.CommonDir, "hooks")
}
