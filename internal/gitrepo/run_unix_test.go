//go:build unix

package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/proc"
)

// A detached command that times out is killed with its whole process
// group: a child it started (as ssh for a push) dies too.
func TestRunnerDetachKillsTheGroup(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	alias := "alias.hang=!sleep 30 & echo $! > " + pidFile + "; wait"
	start := time.Now()
	_, err := Runner{Dir: dir, Timeout: 300 * time.Millisecond, Detach: true}.Run(context.Background(), "-c", alias, "hang")
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("returned after %s", d)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if !proc.AwaitExit(pid, 5*time.Second) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the child %d outlived the killed git", pid)
	}
}
