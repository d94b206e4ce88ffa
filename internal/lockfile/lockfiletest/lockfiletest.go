// Package lockfiletest helps tests plant the lock files a killed process
// leaves.
package lockfiletest

import (
	"os/exec"
	"testing"

	"github.com/entirecli/entire/internal/lockfile"
)

// DeadOwner returns the owner record of a process of this host that has
// exited (git, run once): a lock holding it is stale, even should its pid
// be reused meanwhile (where start times are known).
func DeadOwner(t testing.TB) lockfile.Owner {
	t.Helper()
	cmd := exec.Command("git", "--version")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	o := lockfile.OwnerOf(cmd.Process.Pid) // until Wait, the pid is still this process's
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return o
}
