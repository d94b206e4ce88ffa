//go:build unix

package gitrepo

import (
	"os"
	"syscall"
)

// inode returns a file's inode number (0 when unknown).
func inode(fi os.FileInfo) uint64 {
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Ino)
	}
	return 0
}
