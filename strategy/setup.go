package strategy

import (
	"context"

	"github.com/entirecli/entire/checkpoint"
)

// ensureSetup re-creates what a turn needs if it went missing (SPEC 2.6
// turn start, step 2): the metadata branch and our git hooks, which a hook
// manager such as husky may have overwritten (a foreign pre-push would
// silently stop the metadata push) or an older entire installed as older
// shims. Both strategies call it at every turn start; it costs a few small
// file reads when all is in place. The git hooks are the hook layer's
// (Env.EnsureGitHooks); without it they are left alone. Failures are
// logged, never returned.
func (e *Env) ensureSetup(ctx context.Context) {
	repo := e.Repo
	// In the git-refs layout each checkpoint makes its own ref: there is
	// no branch to create.
	if tip, err := repo.ReadRef(checkpoint.MetadataRef); err == nil && tip.IsZero() && e.layout() == checkpoint.LayoutBranch {
		if created, err := e.checkpoints().EnsureBranch(ctx); err != nil {
			e.Log.Warn("create metadata branch", "error", err)
		} else if created {
			e.printf("✓ Created orphan branch '%s' for session metadata\n", checkpoint.MetadataBranch)
		}
	}
	if e.EnsureGitHooks == nil {
		return
	}
	localDev := e.Settings != nil && e.Settings.LocalDev
	if err := e.EnsureGitHooks(localDev); err != nil {
		e.Log.Warn("reinstall git hooks", "error", err)
	}
}
