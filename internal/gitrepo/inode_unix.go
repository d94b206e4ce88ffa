//go:build unix

package gitrepo

import (
	"os"
	"syscall"
)

// OpenNoFollow opens a file for reading, failing when path itself is a
// symbolic link (O_NOFOLLOW): a work-tree file swapped for a link after
// it was looked at is not read through.
func OpenNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

// inode returns a file's inode number (0 when unknown).
func inode(fi os.FileInfo) uint64 {
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Ino)
	}
	return 0
}
