//go:build unix

package gittest

import (
	"fmt"
	"net"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// Daemon serves the bare repositories under base with `git daemon` on
// 127.0.0.1 (push enabled) and returns its git:// base URL. It skips the
// test when git daemon is not available.
func Daemon(t *testing.T, base string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		url, err := tryDaemon(t, base)
		if err == nil {
			return url
		}
		lastErr = err
	}
	t.Skipf("git daemon unavailable: %v", lastErr)
	return ""
}

// tryDaemon starts git daemon on a free port (killed, with its children, at
// cleanup) and waits until it accepts connections. It fails when the
// daemon exits first (port taken meanwhile, or no daemon support).
func tryDaemon(t *testing.T, base string) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("git", "daemon", "--export-all", "--enable=receive-pack", "--reuseaddr",
		"--listen=127.0.0.1", "--port="+port, "--base-path="+base, base)
	cmd.Env = Env(t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	})
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-done:
			done <- err
			return "", fmt.Errorf("git daemon exited: %v", err)
		default:
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "git://" + addr, nil
		}
	}
	return "", fmt.Errorf("git daemon did not listen on %s within 5s", addr)
}
