//go:build unix

package fswatch

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockState takes the watcher's lock of a state directory: an flock the
// kernel releases when the process dies, so a killed watcher leaves
// nothing to break.
func lockState(path string) (unlock func(), err error) {
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
	return func() { f.Close() }, nil
}

// ownedByMe reports whether fi belongs to the current user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
