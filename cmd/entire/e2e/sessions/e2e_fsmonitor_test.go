package sessions

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/fswatch"
)

// TestE2EDisableStopsWatcher: `entire disable` makes the hooks no-ops, so
// the work tree's watcher is asked to exit, and `--uninstall` removes its
// state directory and the private index's shared index, leaving the user's
// own.
func TestE2EDisableStopsWatcher(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Env = append(r.Env, "ENTIRE_FSMONITOR=1") // a small repository
	gitDir := filepath.Join(r.Dir, ".git")
	state := fswatch.StateDir(gitDir)
	// A shared index of the user's own split index: never ours to remove.
	users := filepath.Join(gitDir, "sharedindex.0123456789012345678901234567890123456789")
	if err := os.WriteFile(users, []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.PlayTurn("start it", map[string]string{"a.txt": "a\n"})
	e2etest.AwaitLine(t, fswatch.LogFile(state), "watcher started", 10*time.Second)
	r.PlayTurn("again", map[string]string{"b.txt": "b\n"})
	ours, _ := filepath.Glob(filepath.Join(gitDir, "sharedindex.*"))
	if len(ours) != 2 {
		t.Fatalf("shared index files %v, want the user's and one of the private index", ours)
	}

	r.MustEntire("disable")
	e2etest.AwaitWatchersExit(t)

	r.MustEntire("disable", "--uninstall", "--force")
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Fatalf("the watcher's state survived --uninstall: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(gitDir, "sharedindex.*")); len(left) != 1 || left[0] != users {
		t.Fatalf("after --uninstall the shared index files are %v, want only the user's", left)
	}
}

// TestE2ESmallRepoRunsPlainStatus: below about 10k files git's own scan is
// cheaper than the monitor, so a small repository's hooks start no
// watcher and keep no private index.
func TestE2ESmallRepoRunsPlainStatus(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	state := fswatch.StateDir(filepath.Join(r.Dir, ".git"))
	r.PlayTurn("small", map[string]string{"a.txt": "a\n"})
	r.PlayTurn("still small", map[string]string{"b.txt": "b\n"})
	if fswatch.Running(state) {
		t.Error("a watcher runs for a small repository")
	}
	if _, err := os.Stat(fswatch.IndexFile(state)); !os.IsNotExist(err) {
		t.Errorf("a small repository got a private index: %v", err)
	}
}
