package strategy

import (
	"context"
	"fmt"
	"strings"

	"github.com/entirecli/entire/checkpoint/session"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Whether a commit holds a session's work (SPEC 5.2.3, 5.2.4), decided the
// same way for the commit being prepared (prepare-commit-msg, from the
// index) and the commit made (post-commit, from its tree):
//
//   - a touched file the commit modifies or deletes (its parent has the
//     path) counts by name;
//   - a touched file new in the commit counts only when its content is the
//     agent's: the blob the session's shadow tree holds for it. A file the
//     agent created, that the user deleted and wrote again with other
//     content, is the user's.
//   - a file the live transcript modified since the session's last step (an
//     active session's work in progress, which no shadow tree holds yet)
//     counts by name.
//
// It costs the lookups of the committed paths in two trees: no work-tree
// file is read.

// committedFile is a path a commit changes: its blob in the commit (zero
// when deleted) and whether the commit's parent lacks the path.
type committedFile struct {
	Hash plumbing.Hash
	New  bool
}

// holdsWork reports whether a commit holds session st's work; changes
// returns which of the given paths the commit changes (see committedFile),
// or, given nil, every path it changes.
//
// A session in a turn holds, besides the files its transcript says it
// wrote, every change the commit makes to a path whose state differs from
// the turn start's (turnMade): agents write files through their shell
// tool and commit them in the same turn.
func (m *ManualCommit) holdsWork(st *session.State, changes func(paths []string) (map[string]committedFile, error)) (bool, error) {
	if st.Phase == session.PhaseActive {
		made, err := m.turnMade(st, changes)
		if err != nil {
			return false, err
		}
		if made {
			return true, nil
		}
	}
	var inProgress []string
	if st.Phase == session.PhaseActive || len(st.FilesTouched) == 0 {
		inProgress = m.transcriptModified(st)
	}
	paths := unionSorted(st.FilesTouched, inProgress)
	if len(paths) == 0 {
		return false, nil
	}
	changed, err := changes(paths)
	if err != nil {
		return false, err
	}
	for _, f := range inProgress {
		if _, ok := changed[f]; ok {
			return true, nil
		}
	}
	var shadow *object.Tree
	shadowRead := false
	for _, f := range st.FilesTouched {
		c, ok := changed[f]
		if !ok {
			continue
		}
		if !c.New {
			return true, nil
		}
		if !shadowRead {
			shadowRead = true
			if shadow, err = m.shadowTree(st); err != nil {
				m.env.Log.Warn("read shadow tree to compare a new file", "session_id", st.SessionID, "error", err)
			}
		}
		if shadow == nil {
			return true, nil // nothing to compare with: the name decides
		}
		if entryHash(shadow, f) == c.Hash {
			return true, nil
		}
	}
	return false, nil
}

// turnMade reports whether the commit changes a path away from its state
// at the start of the session's current turn, as the turn start recorded
// it (session.PrePrompt: HEAD then, and the paths git status reported);
// false when the turn start recorded nothing to compare with.
func (m *ManualCommit) turnMade(st *session.State, changes func(paths []string) (map[string]committedFile, error)) (bool, error) {
	pre, err := session.ReadPrePrompt(m.env.Repo.Root, st.SessionID)
	if err != nil || pre == nil || pre.Head == "" {
		return false, nil
	}
	all, err := changes(nil)
	if err != nil || len(all) == 0 {
		return false, err
	}
	start, err := m.env.Repo.CommitTree(plumbing.NewHash(pre.Head))
	if err != nil {
		m.env.Log.Warn("read the turn start's HEAD", "session_id", st.SessionID, "error", err)
		return false, nil
	}
	for p, c := range all {
		if isProtected(p) {
			continue
		}
		was := entryHash(start, p)
		if s, ok := pre.Dirty[p]; ok {
			was = plumbing.ZeroHash
			if s.Mode != 0 {
				was = plumbing.NewHash(s.Hash)
			}
		}
		if c.Hash != was {
			return true, nil
		}
	}
	return false, nil
}

// shadowTree returns the newest tree the session recorded of the work
// tree: its newest pending turn end's, else the tip of its shadow branch;
// nil without error when there is neither.
func (m *ManualCommit) shadowTree(st *session.State) (*object.Tree, error) {
	h, _, err := m.latestTree(st)
	if err != nil || h.IsZero() {
		return nil, err
	}
	return m.env.Repo.Git.TreeObject(h)
}

// stagedChanges returns the paths staged for the commit in progress with
// their blobs in the index, relative to HEAD (git honours GIT_INDEX_FILE,
// which `git commit <paths>` points at a temporary index): one `git diff
// --cached --raw`.
func (m *ManualCommit) stagedChanges(ctx context.Context) (map[string]committedFile, error) {
	out, err := m.env.Repo.RunGit(ctx, "diff", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev")
	if err != nil {
		return nil, err
	}
	return parseRawDiff(string(out))
}

// parseRawDiff parses `git diff --raw -z --no-renames --no-abbrev`: records
// ":<old mode> <new mode> <old hash> <new hash> <status>" NUL <path> NUL.
func parseRawDiff(out string) (map[string]committedFile, error) {
	set := map[string]committedFile{}
	fields := strings.Split(out, "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		meta, path := fields[i], fields[i+1]
		f := strings.Fields(strings.TrimPrefix(meta, ":"))
		if len(f) != 5 || !plumbing.IsHash(f[3]) {
			return nil, fmt.Errorf("unexpected git diff --raw record %q", meta)
		}
		set[path] = committedFile{Hash: plumbing.NewHash(f[3]), New: f[4] == "A"}
	}
	return set, nil
}

// commitChanges returns which of paths commit changes relative to its
// first parent, by looking the paths up in both trees (no tree walk).
func (m *ManualCommit) commitChanges(commit *object.Commit, paths []string) (map[string]committedFile, error) {
	tree, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("read commit %s tree %s: %w", commit.Hash, commit.TreeHash, err)
	}
	var parent *object.Tree
	if len(commit.ParentHashes) > 0 {
		pc, err := m.env.Repo.Git.CommitObject(commit.ParentHashes[0])
		if err != nil {
			return nil, fmt.Errorf("read parent %s of commit %s: %w", commit.ParentHashes[0], commit.Hash, err)
		}
		if parent, err = pc.Tree(); err != nil {
			return nil, fmt.Errorf("read commit %s tree %s: %w", pc.Hash, pc.TreeHash, err)
		}
	}
	if paths == nil {
		// Every path the commit changes.
		var from plumbing.Hash
		if parent != nil {
			from = parent.Hash
		}
		set := map[string]bool{}
		if err := m.env.Repo.DiffTreePaths(from, tree.Hash, isProtected, set); err != nil {
			return nil, fmt.Errorf("compare commit %s with its parent: %w", commit.Hash, err)
		}
		for p := range set {
			paths = append(paths, p)
		}
	}
	out := map[string]committedFile{}
	for _, p := range paths {
		now, was := entryHash(tree, p), entryHash(parent, p)
		if now != was {
			out[p] = committedFile{Hash: now, New: was.IsZero()}
		}
	}
	return out, nil
}
