package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// staleExclLock is the age after which an O_EXCL lock file is considered
// abandoned by a dead process.
const staleExclLock = time.Minute

// lockFileExcl takes an exclusive lock by creating path+".excl" with O_EXCL,
// polling for at most timeout. It is the portable fallback for platforms
// without flock(2): unlike flock, a crashed holder leaves the file behind,
// so a lock file older than staleExclLock is removed and retaken. The
// returned function releases the lock.
func lockFileExcl(path string, timeout time.Duration) (func(), error) {
	excl := path + ".excl"
	deadline := time.Now().Add(timeout)
	for {
		f, err := os.OpenFile(excl, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			_ = f.Close()
			return func() { _ = os.Remove(excl) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if info, serr := os.Stat(excl); serr == nil && time.Since(info.ModTime()) > staleExclLock {
			_ = os.Remove(excl)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("lock %s: %w", path, ErrLockTimeout)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
