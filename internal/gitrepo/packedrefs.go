package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// packedRefs is the packed-refs file of the common directory, read once
// and again only when it changes (size, time or inode). go-git scans the
// whole file, parsing line by line, for every ref it does not find loose:
// in a repository of 20,000 checkpoint refs after a `git gc` that is a
// 1.5 MB parse per ref read, tens of them per hook (and hundreds for a
// blame). The file is indexed once when read (the offsets of its ref lines
// in name order) and a lookup is a binary search.
type packedRefs struct {
	mu    sync.Mutex
	size  int64
	mtime time.Time
	ino   uint64
	read  bool
	data  []byte
	lines []int // offsets of the "<hex> <name>" lines, by name
}

// maxPackedRefs bounds the packed-refs file read (about 3 million refs).
const maxPackedRefs = 256 << 20

// lookup returns the value of name in the packed-refs file of commonDir;
// found is false when the file or the ref is not there.
func (p *packedRefs) lookup(commonDir string, name string) (h plumbing.Hash, found bool, err error) {
	path := filepath.Join(commonDir, "packed-refs")
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return plumbing.ZeroHash, false, nil
	}
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	if fi.Size() > maxPackedRefs {
		return plumbing.ZeroHash, false, fmt.Errorf("%s: %d bytes", path, fi.Size())
	}
	var ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = uint64(st.Ino)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.read || fi.Size() != p.size || !fi.ModTime().Equal(p.mtime) || ino != p.ino {
		data, err := os.ReadFile(path)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, '\n') // every line ends as the search expects
		}
		p.data, p.size, p.mtime, p.ino, p.read = data, fi.Size(), fi.ModTime(), ino, true
		p.lines = indexPacked(data)
	}
	return findIndexed(p.data, p.lines, name)
}

// indexPacked returns the offsets of the ref lines of a packed-refs file
// ("<40 hex> <name>"; not comments, peeled values or other lines), sorted
// by name (git writes them sorted: then no sort is needed).
func indexPacked(data []byte) []int {
	var out []int
	sorted := true
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			break
		}
		end += off
		if end-off > 41 && data[off+40] == ' ' && data[off] != '#' && data[off] != '^' {
			if n := len(out); n > 0 && sorted && bytes.Compare(packedName(data, out[n-1]), data[off+41:end]) > 0 {
				sorted = false
			}
			out = append(out, off)
		}
		off = end + 1
	}
	if !sorted {
		sort.SliceStable(out, func(i, j int) bool { return bytes.Compare(packedName(data, out[i]), packedName(data, out[j])) < 0 })
	}
	return out
}

// packedName returns the name of the ref line at off.
func packedName(data []byte, off int) []byte {
	end := off + 41 + bytes.IndexByte(data[off+41:], '\n')
	return data[off+41 : end]
}

// findIndexed finds name among the indexed ref lines of a packed-refs
// file by binary search.
func findIndexed(data []byte, lines []int, name string) (plumbing.Hash, bool, error) {
	key := []byte(name)
	i := sort.Search(len(lines), func(i int) bool { return bytes.Compare(packedName(data, lines[i]), key) >= 0 })
	if i == len(lines) || !bytes.Equal(packedName(data, lines[i]), key) {
		return plumbing.ZeroHash, false, nil
	}
	if hex := string(data[lines[i] : lines[i]+40]); isLowerHex(hex) {
		return plumbing.NewHash(hex), true, nil
	}
	return plumbing.ZeroHash, false, fmt.Errorf("packed-refs: bad line for %s", name)
}

// findPacked finds the line "<40 hex> <name>" of a packed-refs file.
func findPacked(data []byte, name string) (plumbing.Hash, bool, error) {
	return findIndexed(data, indexPacked(data), name)
}

// readRefFast reads ref name of the common directory the way git does,
// loose file first, then packed-refs (through the cache); ok is false when
// it cannot say (a symbolic ref, a per-worktree ref, an unreadable file),
// and go-git is asked instead.
func (r *Repo) readRefFast(name plumbing.ReferenceName) (h plumbing.Hash, ok bool) {
	s := string(name)
	if !strings.HasPrefix(s, "refs/") || r.refDir(name) != r.CommonDir {
		return plumbing.ZeroHash, false
	}
	data, err := os.ReadFile(filepath.Join(r.CommonDir, filepath.FromSlash(s)))
	switch {
	case err == nil:
		line := strings.TrimSpace(string(data))
		if plumbing.IsHash(line) {
			return plumbing.NewHash(line), true
		}
		return plumbing.ZeroHash, false // symbolic
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		h, found, err := r.packed.lookup(r.CommonDir, s)
		if err != nil {
			return plumbing.ZeroHash, false
		}
		if !found {
			return plumbing.ZeroHash, true
		}
		return h, true
	}
	return plumbing.ZeroHash, false
}

// isLowerHex reports whether s is an object name as git writes it: 40
// lowercase hexadecimal digits.
func isLowerHex(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
