//go:build unix

package push

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in a new session (so it has no controlling terminal to
// prompt on, and is the leader of its own process group) and makes
// cancellation kill the whole group.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
