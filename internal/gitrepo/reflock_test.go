package gitrepo

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/lockfile"
	"github.com/entirecli/entire/internal/lockfile/lockfiletest"
	"github.com/go-git/go-git/v5/plumbing"
)

// A ref lock left by a killed entire is removed (and logged) by the next
// update; one held by a live process, or git's own lock holding a hash,
// makes the update wait and fail, and stays. Either way the ref keeps
// working for git and the lock content never becomes the ref.
func TestUpdateRefStaleLock(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	r := openTest(t, dir)
	var logged strings.Builder
	r.Log = slog.New(slog.NewTextHandler(&logged, nil))
	r.refLockWait = 100 * time.Millisecond
	head, _ := r.Head()
	name := plumbing.ReferenceName("refs/heads/entire/locked")
	lock := filepath.Join(dir, ".git", "refs", "heads", "entire", "locked.lock")
	os.MkdirAll(filepath.Dir(lock), 0o755)

	os.WriteFile(lock, lockfiletest.DeadOwner(t).Encode(), 0o644)
	if err := r.UpdateRef(name, head, plumbing.ZeroHash); err != nil {
		t.Fatalf("update past a dead owner's lock: %v", err)
	}
	if got := gittest.Git(t, dir, "rev-parse", "entire/locked"); got != head.String() {
		t.Errorf("git reads the ref as %s", got)
	}
	if _, err := os.Lstat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock left after the update: %v", err)
	}
	if !strings.Contains(logged.String(), "stale lock") || !strings.Contains(logged.String(), "is not running") {
		t.Errorf("log: %q", logged.String())
	}

	c := commitOn(t, r, head, "next")
	for _, content := range [][]byte{lockfile.Self().Encode(), []byte(c.String() + "\n")} {
		os.WriteFile(lock, content, 0o644)
		old := time.Now().Add(-time.Hour)
		os.Chtimes(lock, old, old)
		if err := r.UpdateRef(name, c, head); !errors.Is(err, ErrRefLocked) {
			t.Errorf("update past a live lock %q: %v, want ErrRefLocked", content, err)
		}
		if b, _ := os.ReadFile(lock); string(b) != string(content) {
			t.Errorf("the live lock became %q", b)
		}
		os.Remove(lock)
	}
	// An empty lock (git or entire died before writing it) goes after a
	// minute, also before a delete through git.
	os.WriteFile(lock, nil, 0o644)
	old := time.Now().Add(-2 * lockfile.EmptyStaleAfter)
	os.Chtimes(lock, old, old)
	if err := r.DeleteRef(context.Background(), name, head); err != nil {
		t.Fatalf("delete past an old empty lock: %v", err)
	}
	gittest.Fsck(t, dir)
}

// ListRefs never reports lock files, nor fails on an empty one (go-git's
// iteration reads every file under refs/).
func TestListRefsSkipsLocks(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	r := openTest(t, dir)
	head, _ := r.Head()
	if err := r.UpdateRef("refs/heads/entire/a", head, plumbing.ZeroHash); err != nil {
		t.Fatal(err)
	}
	lockDir := filepath.Join(dir, ".git", "refs", "heads", "entire")
	os.WriteFile(filepath.Join(lockDir, "b.lock"), lockfile.Self().Encode(), 0o644)
	os.WriteFile(filepath.Join(lockDir, "c.lock"), nil, 0o644)
	refs, err := r.ListRefs("refs/heads/entire/")
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 || refs["refs/heads/entire/a"] != head {
		t.Errorf("refs: %v", refs)
	}
}
