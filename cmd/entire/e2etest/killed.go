package e2etest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/lockfile"
)

// HasCheckpoint reports whether checkpoint id is on the metadata branch.
func HasCheckpoint(t *testing.T, dir, id string) bool {
	t.Helper()
	_, err := gittest.GitErr(dir, "cat-file", "-e", CpPath(id, "metadata.json"))
	return err == nil
}

// AssertNoPendingMarks checks that no condensation is left pending.
func (r *SessionRepo) AssertNoPendingMarks() {
	r.T.Helper()
	if entries, _ := os.ReadDir(GitPath(r.T, r.Dir, "entire-pending")); len(entries) != 0 {
		r.T.Errorf("pending condensation marks left: %v", entries)
	}
}

// KilledCondensation commits the staged work with the installed hooks and
// kills (SIGKILL) the post-commit hook after it marked the condensation as
// pending and before it wrote the checkpoint: the metadata branch's lock
// is held meanwhile by this (live) test process, so the hook waits on it.
// It returns the checkpoint ID of the commit's trailer.
func (r *SessionRepo) KilledCondensation(msg string) string {
	t := r.T
	t.Helper()
	lock := metadataLock(t, r.Dir)
	if err := os.WriteFile(lock, lockfile.Self().Encode(), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(lock)
	gittest.Git(t, r.Dir, "add", "-A")
	cmd := GitCmd(t, r, "commit", "-q", "-m", msg)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pending := GitPath(t, r.Dir, "entire-pending")
	var pid int
	for deadline := time.Now().Add(20 * time.Second); pid == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("post-commit marked no pending condensation in %s", pending)
		}
		entries, _ := os.ReadDir(pending)
		for _, e := range entries {
			var owner lockfile.Owner
			if b, err := os.ReadFile(filepath.Join(pending, e.Name())); err == nil && json.Unmarshal(b, &owner) == nil {
				pid = owner.PID
			}
		}
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the post-commit hook (pid %d): %v", pid, err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("git commit: %v", err)
	}
	id := CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("the commit got no trailer")
	}
	if HasCheckpoint(t, r.Dir, id) {
		t.Fatal("the killed post-commit wrote the checkpoint anyway")
	}
	return id
}
