package e2etest

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// WatchOpen starts watching for a process to open the file at path
// (inotify's IN_OPEN, which fsnotify does not offer); the returned
// function waits, at most limit, for that open. Start watching before
// starting the process, so that its open cannot come first.
func WatchOpen(t testing.TB, path string) (await func(limit time.Duration)) {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	if _, err := unix.InotifyAddWatch(fd, path, unix.IN_OPEN); err != nil {
		unix.Close(fd)
		t.Fatalf("watch %s: %v", path, err)
	}
	return func(limit time.Duration) {
		t.Helper()
		defer unix.Close(fd)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		deadline := time.Now().Add(limit)
		for {
			left := time.Until(deadline)
			if left <= 0 {
				t.Fatalf("nothing opened %s within %s", path, limit)
			}
			n, err := unix.Poll(fds, int(left.Milliseconds())+1)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				t.Fatalf("wait for an open of %s: %v", path, err)
			}
			if n > 0 {
				return
			}
		}
	}
}
