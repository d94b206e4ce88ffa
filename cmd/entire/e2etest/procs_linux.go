package e2etest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// procMarker is the marker of test name in this test binary.
func procMarker(name string) string { return strconv.Itoa(os.Getpid()) + ":" + name }

// marked returns the processes whose environment holds runEnv=m, with
// their command lines.
func marked(m string) map[int][]string {
	want := []byte(runEnv + "=" + m + "\x00")
	out := map[int][]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append(env, 0), want) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out[pid] = strings.Split(strings.TrimRight(string(cmd), "\x00"), "\x00")
	}
	return out
}

// awaitExit waits, at most limit, until the processes marked m (but those
// skip accepts) have exited, new ones included, and returns those still
// running then. It waits on each process's pidfd: the kernel says when it
// exits.
func awaitExit(m string, skip func([]string) bool, limit time.Duration) []string {
	deadline := time.Now().Add(limit)
	for {
		procs := marked(m)
		var fds []unix.PollFd
		var names []string
		for pid, cmd := range procs {
			if skip != nil && skip(cmd) {
				continue
			}
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				continue // gone already
			}
			fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
			names = append(names, fmt.Sprintf("%d %s", pid, strings.Join(cmd, " ")))
		}
		if len(fds) == 0 {
			return nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			closeAll(fds)
			return names
		}
		// Until every one of them has exited: poll returns as each does.
		for done := 0; done < len(fds) && time.Until(deadline) > 0; {
			n, err := unix.Poll(fds, int(time.Until(deadline).Milliseconds())+1)
			if err == unix.EINTR {
				continue
			}
			if err != nil || n == 0 {
				break
			}
			for i := range fds {
				if fds[i].Revents != 0 && fds[i].Fd >= 0 {
					unix.Close(int(fds[i].Fd))
					fds[i].Fd = -1 // poll skips negative descriptors
					done++
				}
			}
		}
		closeAll(fds)
		// Processes they started meanwhile are looked for again.
	}
}

func closeAll(fds []unix.PollFd) {
	for _, f := range fds {
		if f.Fd >= 0 {
			unix.Close(int(f.Fd))
		}
	}
}

// stopWatchers asks the work-tree watchers marked m to stop (SIGTERM ends
// them cleanly).
func stopWatchers(m string) {
	for pid, cmd := range marked(m) {
		if isWatcher(cmd) {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
	}
}

// killAll kills the processes marked m.
func killAll(m string) {
	for pid := range marked(m) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
