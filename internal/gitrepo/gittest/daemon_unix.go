//go:build unix

package gittest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Daemon serves the bare repositories under base with `git daemon` on
// 127.0.0.1 (push enabled) and returns its git:// base URL; the daemon is
// stopped at the test's cleanup. It skips the test when git daemon is not
// available.
func Daemon(t *testing.T, base string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	url, stop, err := StartDaemon(base, Env(t.TempDir()))
	if err != nil {
		t.Skipf("git daemon unavailable: %v", err)
	}
	t.Cleanup(stop)
	return url
}

// StartDaemon serves the bare repositories under base with `git daemon` on
// 127.0.0.1 (push enabled), run with env, and returns its git:// base URL
// and a function that stops it (killing its children too). It tries a few
// free ports: another process may take one between the probe and git
// daemon's listen.
func StartDaemon(base string, env []string) (url string, stop func(), err error) {
	var errs []error
	for attempt := 0; attempt < 5; attempt++ {
		url, stop, err := tryDaemon(base, env)
		if err == nil {
			return url, stop, nil
		}
		errs = append(errs, err)
	}
	return "", nil, errors.Join(errs...)
}

// tryDaemon starts git daemon on a free port and waits until it accepts
// connections. It fails when the daemon exits first (port taken meanwhile,
// or no daemon support).
func tryDaemon(base string, env []string) (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("find a free port: %w", err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	// --verbose makes the daemon say "Ready to rumble" once it listens:
	// the wait is on that line, not on attempts to connect.
	cmd := exec.Command("git", "daemon", "--verbose", "--export-all", "--enable=receive-pack", "--reuseaddr",
		"--listen=127.0.0.1", "--port="+port, "--base-path="+base, base)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start git daemon: %w", err)
	}
	ready := make(chan struct{})
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Ready to rumble") {
				close(ready)
				break
			}
		}
		// The rest (one line per request) is read and dropped, so the
		// daemon never blocks on a full pipe.
		_, _ = io.Copy(io.Discard, stderr)
	}()
	done := make(chan error, 1)
	go func() {
		<-logged // Wait closes the pipe: read it to the end first
		done <- cmd.Wait()
	}()
	stop := func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if err, ok := <-done; ok {
			done <- err
		}
	}
	select {
	case <-ready:
		return "git://" + addr, stop, nil
	case err := <-done:
		done <- err
		return "", nil, fmt.Errorf("git daemon exited: %v", err)
	case <-time.After(10 * time.Second):
		stop()
		return "", nil, fmt.Errorf("git daemon did not listen on %s within 10s", addr)
	}
}
