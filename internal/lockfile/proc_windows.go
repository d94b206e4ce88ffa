//go:build windows

package lockfile

import "os"

// processExists reports whether pid names a process: Windows' FindProcess
// opens it, which fails when there is none.
func processExists(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
