// Package githook installs and removes the git hooks through which git
// tells entire about commits and pushes (prepare-commit-msg, commit-msg,
// post-commit, post-rewrite, pre-push). Each hook is a small #!/bin/sh shim carrying the
// marker comment "# Entire CLI hooks" that runs `entire hooks git <hook>`.
//
// Installation is conservative: a pre-existing foreign hook is backed up as
// <hook>.pre-entire and chained (run after ours, its exit status passed
// through); only marker-bearing files are ever rewritten or removed;
// Uninstall restores the backups byte for byte. The hooks directory follows
// core.hooksPath (husky, lefthook) and otherwise is hooks/ under the git
// common dir, so linked worktrees share the hooks git actually runs.
package githook
