//go:build unix

package agent

import (
	"os"
	"syscall"
)

// openNonBlock keeps the open of a FIFO from waiting for a writer.
const openNonBlock = syscall.O_NONBLOCK

// clearNonBlock puts a regular file back in blocking mode (reads of regular
// files never block anyway; this keeps the descriptor ordinary).
func clearNonBlock(f *os.File) error {
	return syscall.SetNonblock(int(f.Fd()), false)
}
