package gitrepo

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Parents answers, for work-tree paths, whether every directory on the
// way to the path is a real directory, as git's has_symlink_leading_path
// does before it reads a path: a path below a symbolic link (or below a
// file) is not in the work tree, whatever the link points to. Each parent
// is looked at once (lstat, never followed), so the cost is bounded by the
// number of distinct parent directories. A Parents describes the disk as
// it was when first asked: use a new one after changing the work tree.
// Not safe for concurrent use.
type Parents struct {
	root string
	seen map[string]fs.FileMode // parent slash path -> type bits; absent entries not yet looked at
}

// missing marks a parent that does not exist in Parents.seen.
const missing = fs.ModeIrregular | fs.ModeTemporary

// NewParents returns a Parents for the work tree at root.
func NewParents(root string) *Parents {
	return &Parents{root: root, seen: map[string]fs.FileMode{}}
}

// Blocked returns the first proper parent of the slash path p that is not
// a directory, and whether it exists: a symbolic link or a file stands
// there (exists), or nothing does. It returns "" when every parent is a
// directory.
func (pp *Parents) Blocked(p string) (parent string, exists bool) {
	for i := strings.IndexByte(p, '/'); i >= 0; i = next(p, i) {
		dir := p[:i]
		mode, ok := pp.seen[dir]
		if !ok {
			fi, err := os.Lstat(filepath.Join(pp.root, filepath.FromSlash(dir)))
			if err != nil {
				mode = missing
			} else {
				mode = fi.Mode().Type()
			}
			pp.seen[dir] = mode
		}
		if mode != fs.ModeDir {
			return dir, mode != missing
		}
	}
	return "", false
}

// next returns the index of the '/' after the one at i, or -1.
func next(p string, i int) int {
	j := strings.IndexByte(p[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}
