package e2etest

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// marker is what runEnv holds in the processes test t caused: unique to
// this test binary and this test.
func marker(t testing.TB) string {
	m := procMarker(t.Name())
	watch(t, m)
	return m
}

// watched are the tests whose processes are awaited at their end (one
// cleanup each).
var watched sync.Map

// watch registers, once per test, the cleanup that ends the processes the
// test caused before its temporary directories are removed: the
// work-tree watchers are asked to stop, every other process gets
// processGrace to finish its work (a background push, a turn finisher)
// and is killed after that; the test ends when they all exited. A
// process still writing into a directory being removed failed tests
// with "directory not empty".
func watch(t testing.TB, m string) {
	if _, loaded := watched.LoadOrStore(m, true); loaded {
		return
	}
	t.TempDir() // registered first, so its removal runs after this cleanup
	t.Cleanup(func() {
		defer watched.Delete(m)
		stopWatchers(m)
		if left := awaitExit(m, nil, processGrace); len(left) > 0 {
			t.Logf("killing %d process(es) still running at the end of the test: %s", len(left), strings.Join(left, "; "))
			killAll(m)
			awaitExit(m, nil, processGrace)
		}
	})
}

// processGrace bounds how long the end of a test waits for its processes.
const processGrace = 60 * time.Second

// AwaitBackground waits until every process test t caused has exited but
// the work-tree watchers (which run until they are asked to stop or their
// work tree goes): the turn finishers, background pushes, condensations
// and compressions the hooks started. It waits on the processes' exit
// (pidfd), never polls. It fails the test after processGrace.
func AwaitBackground(t testing.TB) {
	t.Helper()
	if left := awaitExit(procMarker(t.Name()), isWatcher, processGrace); len(left) > 0 {
		t.Fatalf("background processes still running after %s: %s", processGrace, strings.Join(left, "; "))
	}
}

// isWatcher reports whether a process's command line is a work-tree
// watcher's (`entire hooks watch`).
func isWatcher(cmdline []string) bool {
	return len(cmdline) >= 3 && cmdline[1] == "hooks" && cmdline[2] == "watch"
}

// AwaitWatchersExit waits until the work-tree watchers test t caused have
// exited (asked to stop, or their work tree removed), on their exit.
func AwaitWatchersExit(t testing.TB) {
	t.Helper()
	notWatcher := func(cmd []string) bool { return !isWatcher(cmd) }
	if left := awaitExit(procMarker(t.Name()), notWatcher, processGrace); len(left) > 0 {
		t.Fatalf("watchers still running after %s: %s", processGrace, strings.Join(left, "; "))
	}
}
