package strategy

import (
	"bytes"
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/settings"
)

// isProtected reports whether a repo-relative path is inside a directory
// that is never snapshotted or touched by a rewind (SPEC 2.3): entire's
// own, or a registered agent's configuration (agent.IsProtectedDir).
// ".git" never shows up in git status.
func isProtected(p string) bool {
	first, _, inDir := strings.Cut(p, "/")
	return inDir && (first == settings.Dir || agent.IsProtectedDir(first))
}

// worktreeStatus is the one `git status` a hook may run, digested.
type worktreeStatus struct {
	// Dirty are the paths whose work-tree content differs from HEAD
	// (modified, added, untracked, deleted), sorted, protected dirs left
	// out.
	Dirty []string
	// Untracked are the untracked, not ignored files.
	Untracked []string
	// Deleted are tracked files gone from the work tree or the index.
	Deleted []string
}

// readStatus runs git status once.
func readStatus(ctx context.Context, repo *gitrepo.Repo) (*worktreeStatus, error) {
	entries, err := repo.Status(ctx)
	if err != nil {
		return nil, err
	}
	ws := &worktreeStatus{}
	for _, e := range entries {
		if isProtected(e.Path) {
			continue
		}
		ws.Dirty = append(ws.Dirty, e.Path)
		switch {
		case e.Untracked():
			ws.Untracked = append(ws.Untracked, e.Path)
		case e.Deleted():
			ws.Deleted = append(ws.Deleted, e.Path)
		}
	}
	sort.Strings(ws.Dirty)
	return ws, nil
}

// newFiles returns the untracked files that were not untracked before.
func (ws *worktreeStatus) newFiles(before []string) []string {
	had := make(map[string]bool, len(before))
	for _, p := range before {
		had[p] = true
	}
	var out []string
	for _, p := range ws.Untracked {
		if !had[p] {
			out = append(out, p)
		}
	}
	return out
}

// unionSorted merges path lists into one sorted list without duplicates.
func unionSorted(lists ...[]string) []string {
	set := map[string]bool{}
	for _, l := range lists {
		for _, p := range l {
			if p != "" {
				set[p] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// scanner returns the transcript scanner of an agent.
func scanner(a agent.Agent) (agent.TranscriptScanner, bool) {
	s, ok := a.(agent.TranscriptScanner)
	return s, ok
}

// transcriptFiles makes the files an analysis found repo-relative and drops
// protected ones.
func transcriptFiles(repo *gitrepo.Repo, cwd string, files []string) []string {
	if cwd == "" {
		cwd = repo.Root
	}
	var out []string
	for _, p := range agent.RepoRelative(repo.Root, cwd, files) {
		if !isProtected(p) {
			out = append(out, p)
		}
	}
	return out
}

// dropIgnored returns paths without the untracked files git ignores:
// files_touched lists only the paths git tracks or would track. A
// gitignored file the agent wrote (.env, node_modules/...) is not
// snapshotted, committed or restored by a rewind, so it is not part of the
// checkpoint, and its name often says what it holds. known are paths git
// status reported (never ignored ones); only the others are asked, so a
// turn pays for `git check-ignore` only when the agent wrote a file that
// git status did not report. When git cannot answer, paths are returned as
// they are and the error is logged.
func (e *Env) dropIgnored(ctx context.Context, paths, known []string) []string {
	isKnown := make(map[string]bool, len(known))
	for _, p := range known {
		isKnown[p] = true
	}
	var ask []byte
	for _, p := range paths {
		if !isKnown[p] {
			ask = append(append(ask, p...), 0)
		}
	}
	if len(ask) == 0 {
		return paths
	}
	// check-ignore reports untracked paths only: tracked files are not
	// subject to exclude rules. Exit status 1 means none is ignored.
	out, err := e.Repo.RunGitInput(ctx, ask, "check-ignore", "-z", "--stdin")
	var ge *gitrepo.GitError
	if errors.As(err, &ge) && ge.ExitCode == 1 {
		return paths
	}
	if err != nil {
		e.Log.Warn("check ignored files", "error", err)
		return paths
	}
	ignored := map[string]bool{}
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			ignored[string(p)] = true
		}
	}
	kept := make([]string, 0, len(paths))
	for _, p := range paths {
		if !ignored[p] {
			kept = append(kept, p)
		}
	}
	return kept
}
