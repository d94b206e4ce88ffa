package cli

import (
	"os/exec"
	"syscall"
)

// stopWithParent makes cmd receive SIGTERM when entire dies, so that a
// killed `entire web` leaves no server behind.
func stopWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
