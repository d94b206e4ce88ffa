//go:build unix

package lockfile

import (
	"errors"
	"syscall"
)

// processExists reports whether pid names a process: kill(pid, 0) fails
// with ESRCH only when there is none (EPERM: it exists, owned by another
// user).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || !errors.Is(err, syscall.ESRCH)
}
