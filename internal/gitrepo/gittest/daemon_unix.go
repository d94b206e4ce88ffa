//go:build unix

package gittest

import (
	"errors"
	"fmt"
	"net"
	"os/exec"
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
	cmd := exec.Command("git", "daemon", "--export-all", "--enable=receive-pack", "--reuseaddr",
		"--listen=127.0.0.1", "--port="+port, "--base-path="+base, base)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start git daemon: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stop := func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if err, ok := <-done; ok {
			done <- err
		}
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-done:
			done <- err
			return "", nil, fmt.Errorf("git daemon exited: %v", err)
		default:
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "git://" + addr, stop, nil
		}
	}
	stop()
	return "", nil, fmt.Errorf("git daemon did not listen on %s within 5s", addr)
}
