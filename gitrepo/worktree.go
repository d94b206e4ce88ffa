package gitrepo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// WorktreeChanges stores the current content of each work-tree path (slash
// separated, relative to Root) as a blob and returns the tree changes that
// record it: a regular or executable file becomes a blob with that mode, a
// symbolic link a blob of its target, and a missing path a deletion.
// Directories and other special files are skipped (a submodule or nested
// repository is not ours to snapshot). Only the given paths are read.
func (r *Repo) WorktreeChanges(paths []string) ([]Change, error) {
	changes := make([]Change, 0, len(paths))
	for _, p := range paths {
		if err := checkPath(p); err != nil {
			return nil, err
		}
		abs := filepath.Join(r.Root, filepath.FromSlash(p))
		fi, err := os.Lstat(abs)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) || isNotDirErr(err) {
			changes = append(changes, Change{Path: p, Delete: true})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("stat %s: %w", p, err)
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(abs)
			if err != nil {
				return nil, fmt.Errorf("read link %s: %w", p, err)
			}
			h, err := r.WriteBlob([]byte(target))
			if err != nil {
				return nil, err
			}
			changes = append(changes, Change{Path: p, Mode: filemode.Symlink, Hash: h})
		case fi.Mode().IsRegular():
			h, err := r.WriteBlobFile(abs)
			if err != nil {
				return nil, err
			}
			mode := filemode.Regular
			if fi.Mode()&0o111 != 0 {
				mode = filemode.Executable
			}
			changes = append(changes, Change{Path: p, Mode: mode, Hash: h})
		}
	}
	return changes, nil
}

// isNotDirErr reports ENOTDIR: a path below something that is now a file.
func isNotDirErr(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
