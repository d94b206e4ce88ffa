//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// NewSession makes cmd start in a new session: no controlling terminal to
// prompt on, its own process group, and no signal from the caller's
// terminal.
func NewSession(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// Detach starts cmd (made with exec.CommandContext) in a new session and
// makes cancellation kill its whole process group.
func Detach(cmd *exec.Cmd) {
	NewSession(cmd)
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
