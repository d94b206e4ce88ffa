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

// backgroundNice is the scheduling niceness of background work: it gets
// the CPU only when the agent's hooks and the user's programs leave some.
const backgroundNice = 19

// LowerPriority makes the calling process background work: its
// niceness is raised to 19, so that it never slows the hooks the agent
// waits for. Failures are ignored (the work only runs at the usual
// priority).
func LowerPriority() {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, backgroundNice)
}
