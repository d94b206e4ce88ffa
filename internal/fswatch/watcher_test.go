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
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// startWatcher runs a watcher on a new work tree and waits until it is
// ready; the watcher stops with the test.
func startWatcher(t *testing.T) (root, state string, done <-chan error) {
	t.Helper()
	root = t.TempDir()
	state = filepath.Join(root, ".git", DirName)
	if err := os.MkdirAll(filepath.Join(root, "src", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Prepare(state); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		ch <- Run(ctx, Options{Root: root, StateDir: state})
		close(exited)
	}()
	t.Cleanup(func() {
		cancel()
		<-exited
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		tok, _, all := decode(t, Query(state, "x"))
		if all && tok != noToken {
			if _, _, all := decode(t, Query(state, tok)); !all {
				return root, state, ch
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the watcher did not become ready")
		}
		time.Sleep(20 * time.Millisecond)
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
	if err := w.watchTree(root, nil); err != nil {
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
	go func() {
		_ = Run(ctx, Options{Root: root, StateDir: state})
		close(exited)
	}()
	t.Cleanup(func() {
		cancel()
		<-exited
	})
	for !Running(state) {
		time.Sleep(10 * time.Millisecond)
	}
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
