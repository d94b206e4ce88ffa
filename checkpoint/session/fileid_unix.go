//go:build unix

package session

import (
	"io/fs"
	"syscall"
)

// inode returns the inode number of info, 0 if unknown.
func inode(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino) //nolint:unconvert // Ino is uint32 on some platforms
	}
	return 0
}
