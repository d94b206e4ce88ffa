package gitrepo

import (
	"os"
	"syscall"
	"time"
)

// changeTime returns when a file's inode last changed (its ctime), which,
// unlike its modification time, no chtimes can set back: the age of a lock
// file whose modification time its writer copied from another file.
func changeTime(fi os.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	}
	return fi.ModTime()
}
