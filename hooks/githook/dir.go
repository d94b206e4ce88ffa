package githook

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entirecli/entire/internal/gitrepo"
)

// Dir returns the directory git runs hooks from for the repository
// containing repoRoot (see Options.HooksDir).
func Dir(repoRoot string) (string, error) {
	return Options{RepoRoot: repoRoot}.HooksDir()
}

// HooksDir returns the directory git runs hooks from: core.hooksPath when
// set (git expands "~"; a relative value is relative to the work tree root,
// where git runs hooks), else hooks/ under the git common dir, which is
// shared by all linked worktrees (the per-worktree git dir is not used by
// git for hooks). The result is absolute and cleaned; the directory may not
// exist yet.
//
// It shells out to git (two calls) because git's own resolution is the
// reference; it is meant for install time, not hot paths.
func (o Options) HooksDir() (string, error) {
	dir, _, err := o.dirs()
	return dir, err
}

// dirs returns the hooks directory and the other directories where an older
// entire may have installed shims: Entire 0.4.x ignored core.hooksPath and
// used <git-dir>/hooks, which in a linked worktree is a per-worktree
// directory git never runs.
func (o Options) dirs() (dir string, legacy []string, err error) {
	out, err := o.git("rev-parse", "--show-toplevel", "--git-common-dir", "--git-dir")
	if err != nil {
		return "", nil, fmt.Errorf("find hooks dir: %w", err)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 {
		return "", nil, fmt.Errorf("find hooks dir: unexpected rev-parse output %q", out)
	}
	top := lines[0]
	common, gitDir := o.abs(lines[1]), o.abs(lines[2])
	dir = filepath.Join(common, "hooks")
	hp, err := o.git("config", "--path", "--get", "core.hooksPath")
	var ge *gitrepo.GitError
	switch {
	case errors.As(err, &ge) && ge.ExitCode == 1:
		// Unset.
	case err != nil:
		return "", nil, fmt.Errorf("find hooks dir: %w", err)
	default:
		if hp = strings.TrimRight(hp, "\r\n"); hp != "" {
			if !filepath.IsAbs(hp) {
				hp = filepath.Join(top, hp)
			}
			dir = filepath.Clean(hp)
		}
	}
	for _, d := range []string{filepath.Join(common, "hooks"), filepath.Join(gitDir, "hooks")} {
		if d != dir && !slices.Contains(legacy, d) {
			legacy = append(legacy, d)
		}
	}
	return dir, legacy, nil
}

// abs makes a path printed by rev-parse (relative to the directory it ran
// in) absolute and clean.
func (o Options) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(o.absRoot(), p)
}

func (o Options) absRoot() string {
	if abs, err := filepath.Abs(o.RepoRoot); err == nil {
		return abs
	}
	return o.RepoRoot
}

// git runs git in RepoRoot with o.Env (the normalised process
// environment when nil) and returns its stdout. A non-zero exit is a
// *gitrepo.GitError, which names the command and what git printed.
func (o Options) git(args ...string) (string, error) {
	out, err := gitrepo.Runner{Dir: o.RepoRoot, Env: o.Env}.Run(context.Background(), args...)
	if err != nil {
		return "", err
	}
	return string(out), nil
}
