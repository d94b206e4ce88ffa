//go:build unix

package proc

import (
	"syscall"
	"time"
)

// awaitExitByProbe waits for pid's exit by signal 0, for systems (or
// kernels before 5.3) without pidfds. A zombie counts as running until its
// parent reaps it.
func awaitExitByProbe(pid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}
