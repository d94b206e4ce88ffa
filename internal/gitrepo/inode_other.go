//go:build !unix

package gitrepo

import "os"

// OpenNoFollow opens a file for reading; this platform has no
// O_NOFOLLOW, so a file is looked at (lstat) before it is opened.
func OpenNoFollow(path string) (*os.File, error) { return os.Open(path) }

// inode returns 0: this platform's stat data has no portable inode.
func inode(os.FileInfo) uint64 { return 0 }
