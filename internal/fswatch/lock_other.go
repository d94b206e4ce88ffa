//go:build !unix

package fswatch

import (
	"errors"
	"os"
)

// lockState is not available without flock: no watcher runs, and every
// status scans.
func lockState(path string) (unlock func(), err error) {
	return nil, errors.New("file watching is not supported on this system")
}

// ownedByMe cannot tell here: the watcher does not run anyway.
func ownedByMe(os.FileInfo) bool { return false }

// sweepRuntime has nothing to sweep where no watcher runs.
func sweepRuntime(dir, keep string) {}
