//go:build !unix

package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// lockFile takes an exclusive lock by creating path+".excl" with O_EXCL,
// polling for at most timeout. A lock file older than a minute is considered
// abandoned by a dead process and removed. The returned function releases it.
func lockFile(path string, timeout time.Duration) (func(), error) {
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
		if info, serr := os.Stat(excl); serr == nil && time.Since(info.ModTime()) > time.Minute {
			_ = os.Remove(excl)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("lock %s: %w", path, ErrLockTimeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
