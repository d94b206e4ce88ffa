package e2etest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// AwaitLine waits, at most limit, until the file at path holds text: the
// watcher's "watcher ready", a log line. It waits on the file system's
// events for the file (inotify), never polls; the file need not exist yet.
func AwaitLine(t testing.TB, path, text string, limit time.Duration) {
	t.Helper()
	has := func() bool {
		b, _ := os.ReadFile(path)
		return strings.Contains(string(b), text)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// The directory, made first when missing, so that the file's
	// creation is an event too.
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(limit)
	for !has() {
		select {
		case <-w.Events:
		case err := <-w.Errors:
			t.Fatalf("watch %s: %v", path, err)
		case <-timeout:
			t.Fatalf("%s does not say %q after %s", path, text, limit)
		}
	}
}
