package rewind

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ownDirs are the directories besides the agents' (agent.IsProtectedDir)
// that are never read from a snapshot nor touched on disk.
var ownDirs = [...]string{".git", ".entire"}

// isProtected reports whether a repo-relative slash path is inside a
// protected directory: git's, entire's or a registered agent's
// configuration.
func isProtected(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return slices.Contains(ownDirs[:], first) || agent.IsProtectedDir(first)
}

// ChangeKind says what a rewind does to a path.
type ChangeKind byte

const (
	// Added: the path does not exist now and will be created.
	Added ChangeKind = 'A'
	// Modified: the path exists and its content, mode or type changes.
	Modified ChangeKind = 'M'
	// Deleted: the path exists and will be removed.
	Deleted ChangeKind = 'D'
)

// entry is a path's state in a tree or on disk; Mode 0 means absent.
type entry = checkpoint.Entry

// FileChange is one path a rewind changes.
type FileChange struct {
	Path string
	Kind ChangeKind
	// OverwritesEdits is set when the user edited the path after the
	// point (between later turns or since the last one): the rewind
	// overwrites those edits, which its undo point keeps.
	OverwritesEdits bool
	want            entry
	// content is what to write when saved is set (an undo point's own
	// copy); otherwise the blob want names is read from git.
	content []byte
	saved   bool
}

// diffTrees adds to out the file paths whose entries differ between trees
// a and b (ZeroHash for an empty tree), protected directories left out;
// see gitrepo.Repo.DiffTreePaths.
func diffTrees(repo *gitrepo.Repo, a, b plumbing.Hash, out map[string]bool) error {
	return repo.DiffTreePaths(a, b, isProtected, out)
}

// lookup returns the file entry at path p of a tree (absent for a
// directory, a submodule or nothing).
func lookup(t *object.Tree, p string) entry { return checkpoint.TreeEntry(t, p) }

// diskReader reads work-tree paths as git would record them. It looks at
// each parent directory once (gitrepo.Parents), so it describes the disk
// as it was when first asked: take a new one after changing the work tree.
type diskReader struct {
	root    string
	parents *gitrepo.Parents
}

func newDiskReader(root string) *diskReader {
	return &diskReader{root: root, parents: gitrepo.NewParents(root)}
}

// entry returns the state of a work-tree path as git would record it.
func (d *diskReader) entry(p string) (entry, error) {
	e, _, err := d.read(p)
	return e, err
}

// read is entry that also returns the content: a file's bytes, a symbolic
// link's target (nil for anything else). Nothing is read through a
// symbolic link: a path below a link (or a file) where a directory was is
// absent, as for git; the link itself is its own path.
func (d *diskReader) read(p string) (entry, []byte, error) {
	if parent, _ := d.parents.Blocked(p); parent != "" {
		return entry{}, nil, nil
	}
	abs := filepath.Join(d.root, filepath.FromSlash(p))
	fi, err := os.Lstat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) || isNotDir(err) {
			return entry{}, nil, nil
		}
		return entry{}, nil, fmt.Errorf("stat %s: %w", p, err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		if err != nil {
			return entry{}, nil, fmt.Errorf("read link %s: %w", p, err)
		}
		return entry{Mode: filemode.Symlink, Hash: plumbing.ComputeHash(plumbing.BlobObject, []byte(target))}, []byte(target), nil
	case fi.Mode().IsRegular():
		data, err := readNoFollow(abs)
		if err != nil {
			return entry{}, nil, fmt.Errorf("read %s: %w", p, err)
		}
		mode := filemode.Regular
		if fi.Mode()&0o111 != 0 {
			mode = filemode.Executable
		}
		return entry{Mode: mode, Hash: plumbing.ComputeHash(plumbing.BlobObject, data)}, data, nil
	case fi.IsDir():
		return entry{Mode: filemode.Dir}, nil, nil
	}
	return entry{}, nil, nil // sockets, devices: treated as absent
}

// readNoFollow reads a file, never through a symbolic link that took its
// place since it was looked at.
func readNoFollow(path string) ([]byte, error) {
	f, err := gitrepo.OpenNoFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// sameFile reports whether the disk state equals the wanted one (a
// deprecated 0664 tree mode counts as regular).
func sameFile(disk, want entry) bool {
	if disk.Mode == filemode.Dir {
		disk = entry{} // a directory where a file is wanted, or nothing: handled by the caller
	}
	return disk.Same(want)
}

// applyChanges makes the work tree match the changes: deletions first
// (deepest paths first, emptied directories removed), then writes. Each
// file is written to a temporary name in its directory, synced, given its
// mode and renamed over the path.
func applyChanges(repo *gitrepo.Repo, changes []FileChange, progress func(FileChange)) error {
	var dels, writes []FileChange
	for _, c := range changes {
		if c.Kind == Deleted {
			dels = append(dels, c)
		} else {
			writes = append(writes, c)
		}
	}
	for _, c := range changes {
		// Writes are checked for links again after the deletions, which
		// may remove a link that stands where a directory comes back.
		if err := safePath(repo.Root, c.Path, c.Kind == Deleted); err != nil {
			return err
		}
	}
	sort.Slice(dels, func(i, j int) bool { return dels[i].Path > dels[j].Path })
	for _, c := range dels {
		abs := filepath.Join(repo.Root, filepath.FromSlash(c.Path))
		if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("delete %s: %w", c.Path, err)
		}
		removeEmptyParents(repo.Root, filepath.Dir(abs))
		progress(c)
	}
	sort.Slice(writes, func(i, j int) bool { return writes[i].Path < writes[j].Path })
	for _, c := range writes {
		if err := safePath(repo.Root, c.Path, true); err != nil {
			return err
		}
		if err := writeEntry(repo, c); err != nil {
			return err
		}
		progress(c)
	}
	return nil
}

// safePath refuses a path that would lead outside the work tree: absolute,
// with empty, "." or ".." components, inside a protected directory, or
// (when links is set) below a symbolic link.
func safePath(root, p string, links bool) error {
	if p == "" || strings.HasPrefix(p, "/") || isProtected(p) {
		return fmt.Errorf("refusing to touch %q", p)
	}
	parts := strings.Split(p, "/")
	for _, part := range parts {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("refusing to touch %q", p)
		}
	}
	dir := root
	for _, part := range parts[:len(parts)-1] {
		if !links {
			break
		}
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		if err != nil {
			return nil // missing from here on: created as directories
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("refusing to touch %q: %s is a symbolic link", p, strings.TrimPrefix(dir, root+string(filepath.Separator)))
		}
	}
	return nil
}

// removeEmptyParents removes dir and its parents while they are empty,
// stopping at root.
func removeEmptyParents(root, dir string) {
	root = filepath.Clean(root)
	for dir = filepath.Clean(dir); dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			return
		}
	}
}

// writeEntry writes one file, symbolic link or blob to the work tree with
// its mode.
func writeEntry(repo *gitrepo.Repo, c FileChange) error {
	p, want, data := c.Path, c.want, c.content
	if !c.saved {
		var err error
		if data, err = repo.ReadBlob(want.Hash); err != nil {
			return fmt.Errorf("restore %s: %w", p, err)
		}
	}
	abs := filepath.Join(repo.Root, filepath.FromSlash(p))
	dir := filepath.Dir(abs)
	if err := makeDirs(repo.Root, dir); err != nil {
		return fmt.Errorf("restore %s: %w", p, err)
	}
	if fi, err := os.Lstat(abs); err == nil && fi.IsDir() {
		if err := os.Remove(abs); err != nil {
			return fmt.Errorf("restore %s: a directory with untracked or ignored files is in the way: %w", p, err)
		}
	}
	// A fixed temporary name, so that a leftover of a crash is replaced
	// by the next rewind instead of piling up in the work tree; the file
	// is created exclusively, never through a link planted at that name,
	// and fsynced (not the directory: many files are written in a row).
	opts := atomicfile.Options{Perm: 0o644, Sync: atomicfile.SyncFile, NoMkdir: true, TempName: ".entire-rewind-" + filepath.Base(abs) + ".tmp"}
	var err error
	switch want.Mode {
	case filemode.Symlink:
		err = atomicfile.Symlink(string(data), abs, opts)
	case filemode.Executable:
		opts.Perm = 0o755
		fallthrough
	default:
		_, err = atomicfile.WriteWith(abs, data, opts)
	}
	if err != nil {
		return fmt.Errorf("restore %s: %w", p, err)
	}
	return nil
}

// makeDirs creates dir and its parents below root; a file standing where a
// directory is needed is an error that names it.
func makeDirs(root, dir string) error {
	err := os.MkdirAll(dir, 0o755)
	if err == nil || !isNotDir(err) && !errors.Is(err, fs.ErrExist) {
		return err
	}
	for d := dir; d != root && len(d) > len(root); d = filepath.Dir(d) {
		if fi, err := os.Lstat(d); err == nil && !fi.IsDir() {
			rel, _ := filepath.Rel(root, d)
			return fmt.Errorf("%s is a file where a directory is needed", filepath.ToSlash(rel))
		}
	}
	return err
}

// isNotDir reports ENOTDIR: a path below something that is a file.
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
