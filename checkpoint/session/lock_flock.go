//go:build unix && !solaris && !aix && !illumos

package session

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockFile takes an exclusive flock(2) on path (created 0600 if missing),
// polling for at most timeout. The lock belongs to the open file description,
// so it excludes other processes and other goroutines of this process alike,
// and the kernel releases it if the process dies. The returned function
// releases it. No lock is ever stale, so onBreak is never called.
func lockFile(path string, timeout time.Duration, onBreak func(path, reason string)) (func(), error) {
	f, err := lockedFile(path, timeout)
	if err != nil {
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}

// handOverLocks is true where a lock can be handed to a child process:
// the flock belongs to the open file, which the child inherits.
const handOverLocks = true

// lockedFile is lockFile returning the locked file: the lock lasts while
// the file, or a copy of its descriptor in a child process, is open.
func lockedFile(path string, timeout time.Duration) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	deadline := time.Now().Add(timeout)
	wait := 100 * time.Microsecond
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, ErrLockTimeout)
		}
		time.Sleep(wait)
		if wait < 10*time.Millisecond {
			wait *= 2
		}
	}
}
