package fswatch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// startWatcher runs a watcher on a new work tree and waits until it is
// ready; the watcher stops with the test.
func startWatcher(t *testing.T) (root, state string, done <-chan error) {
	t.Helper()
	return startWatcherWith(t, nil)
}

// startWatcherWith is startWatcher with prepare run on the work tree
// before the watcher starts.
func startWatcherWith(t *testing.T, prepare func(root string)) (root, state string, done <-chan error) {
	t.Helper()
	root = t.TempDir()
	state = filepath.Join(root, ".git", DirName)
	if err := os.MkdirAll(filepath.Join(root, "src", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if prepare != nil {
		prepare(root)
	}
	if err := Prepare(state); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan error, 1)
	exited := make(chan struct{})
	ready := make(chan struct{})
	go func() {
		ch <- Run(ctx, Options{Root: root, StateDir: state, Logf: signalOn("watcher ready", ready)})
		close(exited)
	}()
	t.Cleanup(func() {
		cancel()
		<-exited
	})
	select {
	case <-ready:
	case err := <-ch:
		t.Fatalf("the watcher ended before it was ready: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not become ready")
	}
	tok, _, _ := decode(t, Query(state, "x"))
	if _, _, all := decode(t, Query(state, tok)); all || tok == noToken {
		t.Fatalf("a ready watcher answered %q with a full scan", tok)
	}
	return root, state, ch
}

// signalOn is an Options.Logf that closes ch when the watcher logs msg.
func signalOn(msg string, ch chan struct{}) func(string, ...any) {
	var once sync.Once
	return func(m string, _ ...any) {
		if m == msg {
			once.Do(func() { close(ch) })
		}
	}
}

// decode splits an answer into its token and paths.
func decode(t *testing.T, a []byte) (token string, paths []string, all bool) {
	t.Helper()
	if !complete(a) {
		t.Fatalf("incomplete answer %q", a)
	}
	parts := strings.Split(string(bytes.TrimSuffix(a, []byte{0})), "\x00")
	token, paths = parts[0], parts[1:]
	if len(paths) == 1 && paths[0] == "/" {
		return token, nil, true
	}
	return token, paths, false
}

func TestWatcherReportsChangesSinceToken(t *testing.T) {
	t.Parallel()
	root, state, _ := startWatcher(t)
	tok, _, _ := decode(t, Query(state, "x"))
	tok, _, _ = decode(t, Query(state, tok))
	// A file made by a shell, a new directory with content made before
	// any watch could exist on it, and an edit deep down.
	cmd := exec.Command("sh", "-c", "echo hi > shell.txt && mkdir -p new/sub && echo x > new/sub/f && echo y >> src/deep/g")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	tok2, paths, all := decode(t, Query(state, tok))
	if all {
		t.Fatal("answered everything")
	}
	for _, want := range []string{"shell.txt", "new", "new/sub/f", "src/deep/g"} {
		if !slices.Contains(paths, want) {
			t.Errorf("changes %q miss %s", paths, want)
		}
	}
	for _, p := range paths {
		if strings.HasPrefix(p, ".git") {
			t.Errorf("reported %s inside .git", p)
		}
	}
	if _, paths, all := decode(t, Query(state, tok2)); all || len(paths) != 0 {
		t.Errorf("nothing changed since, got %q all=%v", paths, all)
	}
}

func TestWatcherStopsWhenWorkTreeRemoved(t *testing.T) {
	t.Parallel()
	root, state, done := startWatcher(t)
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher outlived its work tree")
	}
	if Running(state) {
		t.Fatal("the socket still answers")
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Fatalf("the watcher recreated the work tree: %v", err)
	}
}

func TestSecondWatcherAndStop(t *testing.T) {
	t.Parallel()
	root, state, done := startWatcher(t)
	if err := Run(context.Background(), Options{Root: root, StateDir: state}); err != ErrRunning {
		t.Fatalf("second watcher: %v, want ErrRunning", err)
	}
	if err := Stop(state); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not stop")
	}
	if _, _, all := decode(t, Query(state, "x")); !all {
		t.Fatal("no watcher, yet not everything")
	}
}

func TestSocketPathIsShort(t *testing.T) {
	t.Parallel()
	p, err := SocketPath("/" + strings.Repeat("long/", 60) + ".git/" + DirName)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) > maxSocketPath {
		t.Fatalf("socket path %q is %d bytes", p, len(p))
	}
}

// A watcher that cannot watch a directory (out of inotify watches) gives
// back the watches it holds, the cookie directory's aside, and adds none
// for directories made afterwards; it keeps answering "/".
func TestWatcherDegradedGivesBackWatches(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	state := filepath.Join(root, ".git", DirName)
	if err := os.MkdirAll(filepath.Join(root, "src", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Prepare(state); err != nil {
		t.Fatal(err)
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer fsw.Close()
	w := &watcher{opts: Options{Root: root, StateDir: state}, fsw: fsw, j: newJournal("a"), cookies: cookieDir(state)}
	if err := fsw.Add(w.cookies); err != nil {
		t.Fatal(err)
	}
	if err := w.watchTree(root, nil, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(fsw.WatchList()); n != 4 {
		t.Fatalf("%d watches before, want 4: %q", n, fsw.WatchList())
	}
	w.degrade("src/new", errors.New("no space left on device"))
	if got := fsw.WatchList(); len(got) != 1 || got[0] != w.cookies {
		t.Fatalf("watches after degrading %q, want only the cookie directory", got)
	}
	made := filepath.Join(root, "made")
	if err := os.Mkdir(made, 0o755); err != nil {
		t.Fatal(err)
	}
	w.event(fsnotify.Event{Name: made, Op: fsnotify.Create}, nil)
	if got := fsw.WatchList(); len(got) != 1 {
		t.Fatalf("a degraded watcher watched a new directory: %q", got)
	}
	w.j.setReady() // the first walk ended
	if _, _, all := w.j.since(w.j.token()); !all {
		t.Fatal("a degraded watcher answered exactly")
	}
}

// Cookie files a killed watcher left do not hold up the queries of the
// next one (a cookie written over makes no Create event).
func TestWatcherIgnoresLeftoverCookies(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	state := filepath.Join(root, ".git", DirName)
	if err := Prepare(state); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 20; i++ {
		if err := os.WriteFile(filepath.Join(cookieDir(state), "c"+strconv.Itoa(i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan struct{})
	started := make(chan struct{})
	go func() {
		_ = Run(ctx, Options{Root: root, StateDir: state, Logf: signalOn("watcher started", started)})
		close(exited)
	}()
	t.Cleanup(func() {
		cancel()
		<-exited
	})
	<-started
	start := time.Now()
	for range 3 {
		if tok, _, _ := decode(t, Query(state, "x")); tok == noToken {
			t.Fatal("a query was not answered by the watcher")
		}
	}
	if d := time.Since(start); d > syncTimeout {
		t.Fatalf("three queries took %v", d)
	}
}

// A temporary directory too long for a socket path falls back to /tmp,
// whatever the length of the user id (60 bytes, the most the first
// version kept, overflowed with a 3-digit one).
func TestSocketPathFallsBackFromLongTempDir(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 60-len(t.TempDir())-1))
	if err := os.MkdirAll(long, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", long)
	p, err := SocketPath("/repo/.git/" + DirName)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) > maxSocketPath {
		t.Fatalf("socket path %q is %d bytes", p, len(p))
	}
	if want := filepath.Join(os.TempDir(), "entire-fsm-"+strconv.Itoa(os.Getuid())); len(want)+26 <= maxSocketPath && !strings.HasPrefix(p, want) {
		t.Fatalf("socket path %q left a temporary directory that was short enough", p)
	}
}

// A nested repository's .git removed (rm -rf vendor/lib/.git) reports its
// directory: git took it for a repository of its own and must look at
// its files now (issue 30, item 9).
func TestWatcherNestedRepositoryRemoved(t *testing.T) {
	t.Parallel()
	root, state, _ := startWatcherWith(t, func(root string) {
		for _, d := range []string{"vendor/lib/.git/objects", "vendor/lib/pkg"} {
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(root, "vendor/lib/pkg/a.go"), []byte("package a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	tok, _, _ := decode(t, Query(state, "x"))
	tok, _, _ = decode(t, Query(state, tok))
	if err := os.RemoveAll(filepath.Join(root, "vendor/lib/.git")); err != nil {
		t.Fatal(err)
	}
	_, paths, all := decode(t, Query(state, tok))
	if all || !slices.Contains(paths, "vendor/lib/") {
		t.Fatalf("after rm -rf vendor/lib/.git: %q all=%v", paths, all)
	}
}

// A file with another hard link (outside the work tree: a write through it
// makes no event here) is named in every answer, so that git compares its
// stat data itself.
func TestWatcherNamesHardLinkedFiles(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "shared.txt")
	if err := os.WriteFile(outside, []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, state, _ := startWatcherWith(t, func(root string) {
		if err := os.Link(outside, filepath.Join(root, "src", "linked.txt")); err != nil {
			t.Fatal(err)
		}
	})
	tok, _, _ := decode(t, Query(state, "x"))
	tok, _, _ = decode(t, Query(state, tok))
	if err := os.WriteFile(outside, []byte("v2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tok2, paths, all := decode(t, Query(state, tok))
	if all || !slices.Contains(paths, "src/linked.txt") {
		t.Fatalf("after a write through the outside link: %q all=%v", paths, all)
	}
	// A link made while the watcher runs counts too, and one removed
	// stops counting.
	if err := os.Link(outside, filepath.Join(root, "later.txt")); err != nil {
		t.Fatal(err)
	}
	_, paths, _ = decode(t, Query(state, tok2))
	if !slices.Contains(paths, "later.txt") {
		t.Errorf("a link made later: %q", paths)
	}
	if err := os.Remove(filepath.Join(root, "src", "linked.txt")); err != nil {
		t.Fatal(err)
	}
	tok3, _, _ := decode(t, Query(state, tok2))
	if _, paths, _ := decode(t, Query(state, tok3)); slices.Contains(paths, "src/linked.txt") {
		t.Errorf("a removed link is still named: %q", paths)
	}
}

// The runtime directory keeps no lock file of a watcher that stopped, and
// a watcher that starts removes those of watchers that were killed (every
// work tree ever watched left one).
func TestWatcherLeavesNoLockFiles(t *testing.T) {
	t.Parallel()
	_, state, done := startWatcher(t)
	lock, err := runtimeName(state, ".lock")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("a running watcher's lock: %v", err)
	}
	// A killed watcher's leftovers: a lock nobody holds and its socket.
	stale := filepath.Join(filepath.Dir(lock), "00000000000000000000.lock")
	staleSock := strings.TrimSuffix(stale, ".lock") + ".sock"
	// The socket first: a watcher of another test sweeping the shared
	// directory between the two writes must find both or neither.
	for _, p := range []string{staleSock, stale} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	Stop(state)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not stop")
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("a stopped watcher's lock file is left: %v", err)
	}
	_, _, _ = startWatcher(t) // sweeps
	for _, p := range []string{stale, staleSock} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s was not swept: %v", filepath.Base(p), err)
		}
	}
}
