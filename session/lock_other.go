//go:build !unix || solaris || aix || illumos

package session

import "time"

// lockFile uses the O_EXCL lock file on platforms without flock(2).
func lockFile(path string, timeout time.Duration) (func(), error) {
	return lockFileExcl(path, timeout)
}
