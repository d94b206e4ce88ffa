package gitrepo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// WorktreeChanges stores the current content of each work-tree path (slash
// separated, relative to Root) as a blob and returns the tree changes that
// record it: a regular or executable file becomes a blob with that mode, a
// symbolic link a blob of its target, and a missing path a deletion.
// Directories and other special files are skipped (a submodule or nested
// repository is not ours to snapshot). Only the given paths are read, and
// nothing is read through a symbolic link: a path below a link (or below a
// file) that stands where a directory was is recorded as that link or file
// instead, as git records it, and a path below a missing directory as a
// deletion (see Parents).
func (r *Repo) WorktreeChanges(paths []string) ([]Change, error) {
	changes, _, err := r.WorktreeChangesCached(paths, nil)
	return changes, err
}

// FileStat is what WorktreeChangesCached remembers of a file it stored:
// enough of its stat data to tell that it did not change since, as git's
// index does, and the blob it was stored as.
type FileStat struct {
	Size    int64  `json:"size"`
	MtimeNs int64  `json:"mtime_ns"`
	Ino     uint64 `json:"ino"`
	Mode    uint32 `json:"mode"`
	Hash    string `json:"hash"`
	// CtimeNs is the inode's change time, which no program can set back
	// (cp -p, rsync -t, tar and touch -d set the modification time to an
	// older one: a file rewritten in place with the same size and its
	// old modification time looks unchanged by the rest).
	CtimeNs int64 `json:"ctime_ns,omitempty"`
	// RecordedNs is when the file was about to be read for Hash.
	RecordedNs int64 `json:"recorded_ns,omitempty"`
}

// racyWindow is how close to the moment a file was read its modification
// or change time must not be for its stat to be trusted: a file written
// again within the same clock tick after being read would otherwise look
// unchanged (git's "racy clean" rule, which compares with the time the
// index was written).
const racyWindow = 2 * time.Second

// unchangedSince reports whether a file whose stat is now st is what c
// recorded: the same size, modification and change times, inode and mode,
// and neither time within racyWindow of when c's content was read.
func (c FileStat) unchangedSince(st FileStat) bool {
	if c.CtimeNs == 0 || c.RecordedNs == 0 {
		return false // recorded before change times were: read again
	}
	newest := max(c.MtimeNs, c.CtimeNs)
	return c.Size == st.Size && c.MtimeNs == st.MtimeNs && c.CtimeNs == st.CtimeNs && c.Ino == st.Ino && c.Mode == st.Mode &&
		c.RecordedNs-newest > int64(racyWindow)
}

// WorktreeChangesCached is WorktreeChanges that skips reading and hashing
// the files whose stat data (size, modification time, inode, mode) equals
// the entry of cache, whose blob must still exist. It returns the cache for
// the given paths, to pass to the next call. A nil cache reads every file.
func (r *Repo) WorktreeChangesCached(paths []string, cache map[string]FileStat) ([]Change, map[string]FileStat, error) {
	return r.worktreeChanges(paths, cache, true)
}

// HashWorktree is WorktreeChangesCached that stores nothing: it returns
// each path's state as git would record it, the content hashed with git's
// blob hashing but not written to the object database. Only the given
// paths are read, and not even those whose stat data the cache vouches for.
func (r *Repo) HashWorktree(paths []string, cache map[string]FileStat) ([]Change, error) {
	changes, _, err := r.worktreeChanges(paths, cache, false)
	return changes, err
}

func (r *Repo) worktreeChanges(paths []string, cache map[string]FileStat, store bool) ([]Change, map[string]FileStat, error) {
	changes := make([]Change, 0, len(paths))
	next := make(map[string]FileStat, len(paths))
	now := time.Now()
	parents := NewParents(r.Root)
	done := make(map[string]bool, len(paths))
	for _, p := range paths {
		if err := checkPath(p); err != nil {
			return nil, nil, err
		}
		if parent, exists := parents.Blocked(p); parent != "" {
			if !exists {
				changes = append(changes, Change{Path: p, Delete: true})
				continue
			}
			p = parent // a link or a file where a directory was: recorded instead
		}
		if done[p] {
			continue
		}
		done[p] = true
		c, ok, err := r.worktreeEntry(p, cache, next, now, store)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			changes = append(changes, c)
		}
	}
	return changes, next, nil
}

// worktreeEntry hashes (with store, stores) one work-tree path whose
// parents are directories and returns its change (false for a directory
// or a special file), recording a file's stat data in next.
func (r *Repo) worktreeEntry(p string, cache, next map[string]FileStat, now time.Time, store bool) (Change, bool, error) {
	abs := filepath.Join(r.Root, filepath.FromSlash(p))
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) || isNotDirErr(err) {
		return Change{Path: p, Delete: true}, true, nil
	}
	if err != nil {
		return Change{}, false, fmt.Errorf("stat %s: %w", p, err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		if err != nil {
			return Change{}, false, fmt.Errorf("read link %s: %w", p, err)
		}
		h := plumbing.ComputeHash(plumbing.BlobObject, []byte(target))
		if store {
			if h, err = r.WriteBlob([]byte(target)); err != nil {
				return Change{}, false, err
			}
		}
		return Change{Path: p, Mode: filemode.Symlink, Hash: h}, true, nil
	case fi.Mode().IsRegular():
		mode := filemode.Regular
		if fi.Mode()&0o111 != 0 {
			mode = filemode.Executable
		}
		st := statOf(fi)
		if c, ok := cache[p]; ok && c.unchangedSince(st) && r.HasObject(plumbing.NewHash(c.Hash)) {
			next[p] = c
			return Change{Path: p, Mode: mode, Hash: plumbing.NewHash(c.Hash)}, true, nil
		}
		st.RecordedNs = now.UnixNano()
		// Opened without following a link that took the file's place.
		f, size, err := openFile(abs, true)
		if err != nil {
			return Change{}, false, err
		}
		var h plumbing.Hash
		if store {
			h, err = r.writeBlobFrom(f, size, abs)
		} else {
			h, err = hashFrom(f, size, abs)
		}
		f.Close()
		if err != nil {
			return Change{}, false, err
		}
		st.Hash = h.String()
		next[p] = st
		return Change{Path: p, Mode: mode, Hash: h}, true, nil
	}
	return Change{}, false, nil
}

// hashFrom returns the git blob hash of an open file's content (size
// bytes), streaming it.
func hashFrom(f *os.File, size int64, path string) (plumbing.Hash, error) {
	h, err := hashStream(plumbing.BlobObject, f, size)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("hash %s: %w", path, err)
	}
	return h, nil
}

// statOf extracts the cached stat data of a file.
func statOf(fi os.FileInfo) FileStat {
	return FileStat{Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano(), Mode: uint32(fi.Mode()), Ino: inode(fi), CtimeNs: changeTime(fi).UnixNano()}
}

// isNotDirErr reports ENOTDIR: a path below something that is now a file.
func isNotDirErr(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
