package gitrepo

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Change is one path to set or delete when building a tree.
type Change struct {
	// Path is slash-separated and relative to the tree root ("a/b.txt").
	Path string
	// Mode is filemode.Regular, Executable or Symlink for a blob, or
	// filemode.Dir to graft an existing tree (Hash) at Path.
	Mode filemode.FileMode
	// Hash is the blob or tree to put at Path.
	Hash plumbing.Hash
	// Delete removes Path (a file, or a whole directory) instead.
	Delete bool
}

// EmptyTree is the hash of the tree with no entries.
var EmptyTree = plumbing.NewHash("4b825dc642cb6eb9a060e54bf8d69288fbee4904")

// ErrBadPath is returned for a path that git would refuse in a tree.
var ErrBadPath = errors.New("gitrepo: invalid path")

// BuildTree returns the tree that results from applying changes to the tree
// base (plumbing.ZeroHash for none). Only the trees on the way to a changed
// path are read and rewritten; every other subtree keeps its hash, so the
// cost grows with the number of changed paths and the size of the
// directories that hold them, never with the size of the repository. A
// directory left with no entries disappears, as in git. Later changes to the
// same path win.
func (r *Repo) BuildTree(base plumbing.Hash, changes []Change) (plumbing.Hash, error) {
	for _, c := range changes {
		if err := checkPath(c.Path); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	h, err := r.applyChanges(base, changes, 0)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if h.IsZero() {
		return r.WriteTree(nil)
	}
	return h, nil
}

// applyChanges applies changes whose paths are relative to the tree at
// treeHash; depth counts the path components already consumed. It returns
// ZeroHash for a tree left empty.
func (r *Repo) applyChanges(treeHash plumbing.Hash, changes []Change, depth int) (plumbing.Hash, error) {
	entries := map[string]object.TreeEntry{}
	if !treeHash.IsZero() {
		t, err := object.GetTree(r.storage, treeHash)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read tree %s: %w", treeHash, err)
		}
		for _, e := range t.Entries {
			entries[e.Name] = e
		}
	}

	nested := map[string][]Change{}
	var order []string
	for _, c := range changes {
		rest := c.Path
		for i := 0; i < depth; i++ {
			rest = rest[strings.IndexByte(rest, '/')+1:]
		}
		name, _, isNested := strings.Cut(rest, "/")
		if isNested {
			if _, seen := nested[name]; !seen {
				order = append(order, name)
			}
			nested[name] = append(nested[name], c)
			continue
		}
		if c.Delete {
			delete(entries, name)
			delete(nested, name) // a later delete of a directory wins over earlier changes inside it
			continue
		}
		entries[name] = object.TreeEntry{Name: name, Mode: c.Mode, Hash: c.Hash}
		delete(nested, name)
	}
	for _, name := range order {
		sub, ok := nested[name]
		if !ok {
			continue
		}
		var subHash plumbing.Hash
		if e, ok := entries[name]; ok {
			if e.Mode == filemode.Dir {
				subHash = e.Hash
			} else if onlyDeletes(sub) {
				// Nothing below a file or a link to delete: it stays.
				continue
			}
		}
		h, err := r.applyChanges(subHash, sub, depth+1)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if h.IsZero() {
			delete(entries, name)
		} else {
			entries[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
		}
	}
	if len(entries) == 0 {
		return plumbing.ZeroHash, nil
	}
	list := make([]object.TreeEntry, 0, len(entries))
	for _, e := range entries {
		list = append(list, e)
	}
	sort.Sort(object.TreeEntrySorter(list))
	return r.WriteTree(list)
}

// onlyDeletes reports whether every change deletes its path.
func onlyDeletes(changes []Change) bool {
	for _, c := range changes {
		if !c.Delete {
			return false
		}
	}
	return true
}

// checkPath rejects paths git would not store: empty, absolute, with empty,
// "." or ".." components, NUL bytes, or a ".git" component.
func checkPath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) {
		return fmt.Errorf("%w: %q", ErrBadPath, p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." || strings.EqualFold(part, ".git") {
			return fmt.Errorf("%w: %q", ErrBadPath, p)
		}
	}
	return nil
}
