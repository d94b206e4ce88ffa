//go:build unix

package fswatch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// lockState takes the watcher's lock of a state directory: an flock the
// kernel releases when the process dies, so a killed watcher leaves
// nothing to break. The lock file is removed when the lock is given back
// (and by sweepRuntime when its holder was killed), so that the runtime
// directory does not keep one for every work tree ever watched; a lock
// taken on a file its holder removed meanwhile is taken again on the new
// one.
func lockState(path string) (unlock func(), err error) {
	for range 5 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("watcher lock: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, ErrRunning
			}
			return nil, fmt.Errorf("watcher lock: %w", err)
		}
		if isFileAt(f, path) {
			return func() {
				_ = os.Remove(path) // while holding it: see above
				f.Close()
			}, nil
		}
		f.Close() // removed by its last holder after we opened it
	}
	return nil, ErrRunning
}

// isFileAt reports whether the open file f is the one at path.
func isFileAt(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// sweepRuntime removes the lock files (and sockets) of dir that no
// watcher holds: those of watchers that were killed, for work trees that
// may be long gone. keep is this watcher's own lock.
func sweepRuntime(dir, keep string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		lock := filepath.Join(dir, name)
		if !strings.HasSuffix(name, ".lock") || lock == keep || !e.Type().IsRegular() {
			continue
		}
		f, err := os.OpenFile(lock, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil && isFileAt(f, lock) {
			_ = os.Remove(strings.TrimSuffix(lock, ".lock") + ".sock")
			_ = os.Remove(lock)
		}
		f.Close()
	}
}

// ownedByMe reports whether fi belongs to the current user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
