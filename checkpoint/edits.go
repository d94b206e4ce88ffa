package checkpoint

import (
	"fmt"
	"sort"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Entry is a path's state in a tree or in the work tree: its mode (0 when
// absent) and blob hash.
type Entry struct {
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// Exists reports whether the path is there.
func (e Entry) Exists() bool { return e.Mode != 0 }

// Same reports whether two states are the same file (git's deprecated
// 0664 mode counts as regular).
func (e Entry) Same(o Entry) bool {
	norm := func(m filemode.FileMode) filemode.FileMode {
		if m == filemode.Deprecated {
			return filemode.Regular
		}
		return m
	}
	return norm(e.Mode) == norm(o.Mode) && (e.Mode == 0 || e.Hash == o.Hash)
}

// TreeEntry returns the file at path p of t (absent for a directory, a
// submodule or nothing; t may be nil).
func TreeEntry(t *object.Tree, p string) Entry {
	if t == nil {
		return Entry{}
	}
	e, err := t.FindEntry(p)
	if err != nil || !e.Mode.IsFile() {
		return Entry{}
	}
	return Entry{Mode: e.Mode, Hash: e.Hash}
}

// Edit is a work-tree path whose state differs from a checkpoint's: what
// was changed there after the checkpoint was taken.
type Edit struct {
	Path string
	// Was is the path in the checkpoint, Now on disk (its content hashed,
	// not stored in git).
	Was, Now Entry
}

// MeasureEdits returns, sorted by path, what changed in the work tree
// since a checkpoint whose tree is since (a shadow-branch step's, or
// HEAD's when there is none): of the paths git status reported (dirty,
// against HEAD's tree head) and the paths where since and head differ (a
// file set back to HEAD's content is no longer dirty, yet differs from the
// checkpoint), those whose state on disk is not since's. Paths for which
// skip returns true (a directory's skips all it holds) are left out of
// the tree comparison; dirty should not hold them either.
//
// When the caller knows the paths where since and head can differ (since
// is HEAD's tree with those paths as a turn end found them, see
// session.WorkTreeRecord), it passes them as known and the trees are not
// compared; nil compares them.
//
// Only the dirty files are read, and not even those whose stat data the
// cache vouches for (gitrepo.Repo.HashWorktree); trees are read only where
// they differ. The cost follows the changed paths, never the size of the
// repository. It also returns the state on disk of every dirty path.
func MeasureEdits(repo *gitrepo.Repo, since, head plumbing.Hash, dirty []string, cache map[string]gitrepo.FileStat, skip func(string) bool, known []string) ([]Edit, map[string]Entry, error) {
	hashed, err := repo.HashWorktree(dirty, cache)
	if err != nil {
		return nil, nil, err
	}
	disk := DiskEntries(dirty, hashed)
	cand := make(map[string]bool, len(dirty))
	for _, p := range dirty {
		cand[p] = true
	}
	if known != nil {
		for _, p := range known {
			if skip == nil || !skip(p) {
				cand[p] = true
			}
		}
	} else if err := repo.DiffTreePaths(head, since, skip, cand); err != nil {
		return nil, nil, err
	}
	sinceTree, err := readTree(repo, since)
	if err != nil {
		return nil, nil, err
	}
	headTree, err := readTree(repo, head)
	if err != nil {
		return nil, nil, err
	}
	var edits []Edit
	for p := range cand {
		now, ok := disk[p]
		if !ok {
			now = TreeEntry(headTree, p) // clean: as in HEAD
		}
		if was := TreeEntry(sinceTree, p); !was.Same(now) {
			edits = append(edits, Edit{Path: p, Was: was, Now: now})
		}
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].Path < edits[j].Path })
	return edits, disk, nil
}

// DiskEntries returns the state on disk of each of paths from the changes
// gitrepo.Repo.WorktreeChanges or HashWorktree returned for them: a path
// they skipped (a directory, a special file) is absent.
func DiskEntries(paths []string, changes []gitrepo.Change) map[string]Entry {
	disk := make(map[string]Entry, len(paths))
	for _, p := range paths {
		disk[p] = Entry{}
	}
	for _, c := range changes {
		if !c.Delete {
			disk[c.Path] = Entry{Mode: c.Mode, Hash: c.Hash}
		}
	}
	return disk
}

// readTree reads tree h (nil for ZeroHash).
func readTree(repo *gitrepo.Repo, h plumbing.Hash) (*object.Tree, error) {
	if h.IsZero() {
		return nil, nil
	}
	t, err := repo.Git.TreeObject(h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	return t, nil
}
