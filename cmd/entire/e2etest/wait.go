package e2etest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint/session"
	"github.com/fsnotify/fsnotify"
)

// AwaitFinishers waits for turn ends being finished in the background.
func AwaitFinishers(t *testing.T, dir string) {
	t.Helper()
	common := GitCommonDir(t, dir)
	store := session.NewStore(session.Options{GitCommonDir: common})
	err := store.AwaitTurnFinishes(10 * time.Second)
	if errors.Is(err, session.ErrLockTimeout) {
		// A busy machine starves the finisher (it runs at the lowest
		// priority): a command that reads steps writes them itself
		// beside it (strategy.SettleTurnEnds), as a user's would.
		RunEntire(t, dir, nil, "", "explain")
		err = store.AwaitTurnFinishes(0)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// AwaitLine waits, at most limit, until the file at path holds text: the
// watcher's "watcher ready", a log line. The file need not exist yet.
func AwaitLine(t testing.TB, path, text string, limit time.Duration) {
	t.Helper()
	AwaitDir(t, filepath.Dir(path), limit, fmt.Sprintf("%s to say %q", path, text), func() bool {
		b, _ := os.ReadFile(path)
		return strings.Contains(string(b), text)
	})
}

// AwaitDir waits, at most limit, until done reports true, testing it
// again on each file system event in dir (inotify): it never polls. dir
// is made when missing, so that its files' creation is an event too; what
// names what is awaited in the failure.
func AwaitDir(t testing.TB, dir string, limit time.Duration, what string, done func() bool) {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(limit)
	for !done() {
		select {
		case <-w.Events:
		case err := <-w.Errors:
			t.Fatalf("watch %s: %v", dir, err)
		case <-timeout:
			t.Fatalf("waited %s for %s", limit, what)
		}
	}
}
