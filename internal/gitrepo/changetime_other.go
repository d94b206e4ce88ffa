//go:build !linux

package gitrepo

import (
	"os"
	"time"
)

// changeTime returns the file's modification time where the inode's change
// time is not read (the fast status runs on Linux only).
func changeTime(fi os.FileInfo) time.Time { return fi.ModTime() }
