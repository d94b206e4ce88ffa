//go:build !unix

package proc

import (
	"os"
	"time"
)

// awaitExitByProbe waits for pid's exit, at most limit, where signals
// cannot probe a process: by waiting on a handle to it.
func awaitExitByProbe(pid int, limit time.Duration) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	done := make(chan struct{})
	go func() {
		_, _ = p.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(limit):
		return false
	}
}
