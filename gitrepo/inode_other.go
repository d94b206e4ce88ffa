//go:build !unix

package gitrepo

import "os"

// inode returns 0: this platform's stat data has no portable inode.
func inode(os.FileInfo) uint64 { return 0 }
