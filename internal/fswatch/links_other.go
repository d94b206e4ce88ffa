//go:build !unix

package fswatch

import "os"

// hardLinked reports whether a file has other hard links; where the link
// count is not read, never.
func hardLinked(os.FileInfo) bool { return false }
