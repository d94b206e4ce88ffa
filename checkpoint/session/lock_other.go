//go:build !unix || solaris || aix || illumos

package session

import (
	"errors"
	"os"
	"time"
)

// lockFile uses the O_EXCL lock file on platforms without flock(2).
func lockFile(path string, timeout time.Duration, onBreak func(path, reason string)) (func(), error) {
	return lockFileExcl(path, timeout, onBreak)
}

// handOverLocks is false: an O_EXCL lock file cannot be handed to a child
// process.
const handOverLocks = false

// lockedFile is not available without flock(2).
func lockedFile(path string, timeout time.Duration) (*os.File, error) {
	return nil, errors.New("lock handover needs flock(2)")
}
