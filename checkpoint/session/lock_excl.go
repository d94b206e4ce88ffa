package session

import (
	"errors"
	"fmt"
	"time"

	"github.com/entirecli/entire/internal/lockfile"
)

// lockFileExcl takes an exclusive lock by creating path+".excl" with O_EXCL,
// polling for at most timeout. It is the portable fallback for platforms
// without flock(2): unlike flock, a crashed holder leaves the file behind,
// so the file records its owner and a lock whose owner is gone (or an
// empty one older than a minute) is removed, reported to onBreak (nil:
// not reported), and retaken; one held by a live process never is (see
// lockfile.Break). The returned function releases the lock.
func lockFileExcl(path string, timeout time.Duration, onBreak func(path, reason string)) (func(), error) {
	l, err := lockfile.Acquire(path+".excl", lockfile.Options{Timeout: timeout, OnBreak: onBreak})
	if errors.Is(err, lockfile.ErrLocked) {
		return nil, fmt.Errorf("lock %s: %w (%w)", path, ErrLockTimeout, err)
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { _ = l.Release() }, nil
}
