//go:build unix

package fswatch

import (
	"os"
	"syscall"
)

// hardLinked reports whether a file has other hard links.
func hardLinked(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1 && fi.Mode().IsRegular()
}
