package gitrepo

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// DiffTreePaths adds to out the file paths (slash separated, relative to
// the root) whose entries differ between the trees a and b (ZeroHash for
// an empty tree). Equal subtrees are skipped by hash, so the cost follows
// the size of the difference, never that of the trees. An entry for which
// skip (when not nil) returns true, a file or a whole directory, is left
// out; submodules are ignored.
func (r *Repo) DiffTreePaths(a, b plumbing.Hash, skip func(path string) bool, out map[string]bool) error {
	return r.diffTrees(a, b, "", skip, out)
}

func (r *Repo) diffTrees(a, b plumbing.Hash, prefix string, skip func(string) bool, out map[string]bool) error {
	if a == b {
		return nil
	}
	ea, err := r.treeEntries(a)
	if err != nil {
		return err
	}
	eb, err := r.treeEntries(b)
	if err != nil {
		return err
	}
	names := make(map[string]bool, len(ea)+len(eb))
	for n := range ea {
		names[n] = true
	}
	for n := range eb {
		names[n] = true
	}
	for n := range names {
		p := prefix + n
		x, y := ea[n], eb[n]
		if x.Mode == y.Mode && x.Hash == y.Hash || skip != nil && skip(p) {
			continue
		}
		var sx, sy plumbing.Hash
		if x.Mode == filemode.Dir {
			sx = x.Hash
		} else if x.Mode != 0 {
			out[p] = true
		}
		if y.Mode == filemode.Dir {
			sy = y.Hash
		} else if y.Mode != 0 {
			out[p] = true
		}
		if !sx.IsZero() || !sy.IsZero() {
			if err := r.diffTrees(sx, sy, p+"/", skip, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// treeEntries returns the entries of tree h by name, submodules left out.
func (r *Repo) treeEntries(h plumbing.Hash) (map[string]object.TreeEntry, error) {
	m := map[string]object.TreeEntry{}
	if h.IsZero() {
		return m, nil
	}
	t, err := r.Git.TreeObject(h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	for _, e := range t.Entries {
		if e.Mode == filemode.Submodule {
			continue // not ours to restore
		}
		m[e.Name] = e
	}
	return m, nil
}
