package proc

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// AwaitExit waits, at most limit, until process pid has exited, and
// reports whether it has. It need not be the caller's child: the wait is on
// the process's pidfd, which the kernel marks when the process exits.
func AwaitExit(pid int, limit time.Duration) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return true
	}
	if err != nil {
		return awaitExitByProbe(pid, limit)
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(limit)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(left.Milliseconds())+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n > 0
	}
}
