package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A lock of the private index left by a process that died holding it is
// removed once it is old, so the copy is refreshed again; a lock that is
// held now makes the fast status give way to the plain one.
func TestFastStatusBreaksStaleIndexLock(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	r := openTest(t, dir)
	fs := &FastStatus{IndexFile: filepath.Join(r.GitDir, "entire-fsmonitor", "index")}
	ctx := context.Background()
	if _, err := r.fastStatus(ctx, fs); err != nil {
		t.Fatalf("first fast status: %v", err)
	}
	lock := fs.IndexFile + ".lock"
	changeUserIndex := func(name string) {
		t.Helper()
		gittest.WriteFile(t, dir, name, name+"\n")
		gittest.Git(t, dir, "add", name)
	}

	// Held now: not broken.
	if err := os.WriteFile(lock, []byte("partial"), 0o600); err != nil {
		t.Fatal(err)
	}
	changeUserIndex("a.txt")
	if _, err := r.fastStatus(ctx, fs); !errors.Is(err, errIndexBusy) {
		t.Fatalf("fast status with a live lock: %v, want errIndexBusy", err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("a live lock was removed: %v", err)
	}

	// Abandoned: broken, and the copy follows the user's index again.
	time.Sleep(20 * time.Millisecond)
	fs.staleLock = 10 * time.Millisecond
	entries, err := r.fastStatus(ctx, fs)
	if err != nil {
		t.Fatalf("fast status with a stale lock: %v", err)
	}
	if len(entries) != 1 || entries[0].Path != "a.txt" || entries[0].X != 'A' {
		t.Fatalf("status %+v, want a.txt added", entries)
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Fatalf("the stale lock is still there: %v", err)
	}
}

// A private index git cannot read fails one status; the next one works on
// a new copy instead of failing until the user's index changes.
func TestFastStatusRecopiesAFailedIndex(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	r := openTest(t, dir)
	fs := &FastStatus{IndexFile: filepath.Join(r.GitDir, "entire-fsmonitor", "index")}
	ctx := context.Background()
	if _, err := r.fastStatus(ctx, fs); err != nil {
		t.Fatalf("first fast status: %v", err)
	}
	if err := os.WriteFile(fs.IndexFile, []byte("DIRC garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := r.fastStatus(ctx, fs); err == nil {
		t.Fatal("a status on a corrupt private index succeeded")
	}
	if _, err := r.fastStatus(ctx, fs); err != nil {
		t.Fatalf("the status after a failed one: %v", err)
	}
}
