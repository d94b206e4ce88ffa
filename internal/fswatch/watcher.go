package fswatch

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Defaults of Options.
const (
	DefaultIdleTimeout = 30 * time.Minute
	// checkEvery is how often the watcher looks whether its work tree and
	// state directory still exist and whether it has been idle too long.
	checkEvery = 2 * time.Second
	// syncTimeout bounds the wait for a query's cookie: past it the query
	// is answered with "/".
	syncTimeout = 2 * time.Second
	// eventBuffer is the length of fsnotify's event channel.
	eventBuffer = 4096
)

// ErrRunning is returned by Run when another watcher holds the state
// directory.
var ErrRunning = errors.New("a watcher is already running")

// Options configures Run.
type Options struct {
	// Root is the absolute root of the work tree to watch.
	Root string
	// StateDir is the watcher's state directory (StateDir).
	StateDir string
	// IdleTimeout ends the watcher when no query came for that long; zero
	// means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Logf, when set, receives the few lines worth keeping: start,
	// readiness, degradation, exit.
	Logf func(msg string, args ...any)
}

// watcher is one running watcher: its journal is owned by the event loop.
type watcher struct {
	opts    Options
	fsw     *fsnotify.Watcher
	j       *journal
	cookies string

	mu      sync.Mutex
	pending map[string]chan<- []byte // cookie name -> the query waiting for it
	queries chan query
	walked  chan walkResult
	last    atomic.Int64 // unix nanoseconds of the last query
	stop    chan struct{}
	nextID  atomic.Uint64
}

// walkResult is what the first walk of the work tree found: its error,
// and the files that have other hard links (see journal.linked).
type walkResult struct {
	err    error
	linked []string
}

// query is a request for the changes since a token, answered once its
// cookie was seen.
type query struct {
	token  string
	cookie string
	answer chan<- []byte
}

func (o Options) logf(msg string, args ...any) {
	if o.Logf != nil {
		o.Logf(msg, args...)
	}
}

// Run watches opts.Root and serves queries on SocketPath(opts.StateDir)
// until ctx ends, the work tree or the state directory is removed, the
// watcher was idle for opts.IdleTimeout, or a client asked it to stop. It
// returns ErrRunning when another watcher serves the state directory.
func Run(ctx context.Context, opts Options) error {
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	// Nothing is created under the work tree here (see Prepare).
	if _, err := os.Stat(cookieDir(opts.StateDir)); err != nil {
		return fmt.Errorf("watcher state directory: %w", err)
	}
	lock, err := runtimeName(opts.StateDir, ".lock")
	if err != nil {
		return err
	}
	unlock, err := lockState(lock)
	if err != nil {
		return err
	}
	defer unlock()
	sweepRuntime(filepath.Dir(lock), lock)
	removeCookies(cookieDir(opts.StateDir))
	sock, err := runtimeName(opts.StateDir, ".sock")
	if err != nil {
		return err
	}
	_ = os.Remove(sock) // a socket of a watcher that is gone: we hold the lock
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return fmt.Errorf("watcher socket: %w", err)
	}
	defer os.Remove(sock)
	defer ln.Close()
	fsw, err := fsnotify.NewBufferedWatcher(eventBuffer)
	if err != nil {
		return fmt.Errorf("watcher: %w", err)
	}
	defer fsw.Close()
	w := &watcher{
		opts: opts, fsw: fsw, j: newJournal(newInstance()), cookies: cookieDir(opts.StateDir),
		pending: map[string]chan<- []byte{}, queries: make(chan query), walked: make(chan walkResult, 1),
		stop: make(chan struct{}),
	}
	w.last.Store(time.Now().UnixNano())
	if err := fsw.Add(w.cookies); err != nil {
		return fmt.Errorf("watch %s: %w", w.cookies, err)
	}
	opts.logf("watcher started", "root", opts.Root, "pid", os.Getpid())
	go w.serve(ln)
	go func() {
		var linked []string
		err := w.watchTree(opts.Root, nil, func(rel string) { linked = append(linked, rel) })
		w.walked <- walkResult{err: err, linked: linked}
	}()
	reason := w.loop(ctx)
	opts.logf("watcher stopped", "root", opts.Root, "reason", reason)
	return nil
}

// removeCookies removes the cookie files a watcher that was killed left
// (with the lock held: no other watcher uses them). A query's cookie of
// the same name would be written over without a Create event, and the
// query wait out syncTimeout.
func removeCookies(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
}

// newInstance names one run of a watcher: tokens of another run are not
// answered from this one's journal.
func newInstance() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b)
}

// loop is the event loop: it owns the journal. It returns why it ended.
func (w *watcher) loop(ctx context.Context) string {
	tick := time.NewTicker(checkEvery)
	defer tick.Stop()
	waiting := map[string]query{} // cookie name -> query, until its event
	for {
		select {
		case <-ctx.Done():
			return "cancelled"
		case <-w.stop:
			return "asked to stop"
		case res := <-w.walked:
			for _, rel := range res.linked {
				w.j.setLinked(rel, true)
			}
			switch err := res.err; {
			case err != nil:
				w.degrade("", err)
			case w.j.degraded:
				// A new directory failed meanwhile: drop what the walk
				// added since.
				w.releaseWatches()
			default:
				w.j.setReady()
				w.opts.logf("watcher ready", "root", w.opts.Root)
			}
		case q := <-w.queries:
			waiting[q.cookie] = q
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return "watch closed"
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.j.invalidate()
				continue
			}
			w.opts.logf("watcher error", "error", err)
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return "watch closed"
			}
			if done := w.event(ev, waiting); done != "" {
				return done
			}
		case <-tick.C:
			if _, err := os.Lstat(w.opts.Root); err != nil {
				return "work tree gone"
			}
			if _, err := os.Lstat(w.cookies); err != nil {
				return "state directory gone"
			}
			if time.Since(time.Unix(0, w.last.Load())) > w.opts.IdleTimeout {
				return "idle"
			}
		}
	}
}

// event handles one event; it returns a reason to stop, or "".
func (w *watcher) event(ev fsnotify.Event, waiting map[string]query) string {
	name := ev.Name
	if filepath.Dir(name) == w.cookies {
		if !ev.Has(fsnotify.Create) {
			delete(waiting, filepath.Base(name)) // a query that gave up
			return ""
		}
		// The query was registered before its cookie was made (the
		// loop received it), so it is known here.
		base := filepath.Base(name)
		if q, ok := waiting[base]; ok {
			delete(waiting, base)
			tok, paths, all := w.j.since(q.token)
			q.answer <- Answer(tok, paths, all)
		}
		return ""
	}
	if name == w.cookies && ev.Has(fsnotify.Remove|fsnotify.Rename) {
		return "state directory gone"
	}
	if name == w.opts.Root {
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			return "work tree gone"
		}
		return ""
	}
	if dir, ok := w.nestedRepo(name); ok && !w.j.degraded {
		// A nested repository's .git made or removed (rm -rf
		// vendor/lib/.git): git must look at its directory again, which
		// it took for a repository of its own, or no longer does.
		w.j.record(dir)
		w.j.record(dir + "/")
		return ""
	}
	rel, ok := w.rel(name)
	if !ok || w.j.degraded {
		return ""
	}
	w.j.record(rel)
	switch {
	case ev.Has(fsnotify.Create):
		fi, err := os.Lstat(name)
		if err == nil && fi.IsDir() {
			// A new directory: watch it, then report everything it
			// already holds (made before the watch existed).
			w.j.record(rel + "/")
			if err := w.watchTree(name, w.j.record, func(rel string) { w.j.setLinked(rel, true) }); err != nil {
				w.degrade(rel, err)
			}
		} else if err == nil {
			w.j.setLinked(rel, hardLinked(fi))
		}
	case ev.Has(fsnotify.Chmod):
		// Attributes, the link count among them (ln made another name).
		if fi, err := os.Lstat(name); err == nil && !fi.IsDir() {
			w.j.setLinked(rel, hardLinked(fi))
		}
	case ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
		// It may have been a directory: git forgets what it knew under it.
		w.j.record(rel + "/")
		w.j.setLinked(rel, false)
		if ev.Has(fsnotify.Rename) {
			_ = w.fsw.Remove(name) // a moved directory keeps its watch under its old name
		}
	}
	return ""
}

// degrade makes the watcher answer "/" to every query from now on: a
// directory (rel, "" during the first walk) could not be watched, mostly
// for want of inotify watches (fs.inotify.max_user_watches). The watches
// are given back, but the cookie directory's, so that the user's other
// tools (editors, build watchers) are not starved of them; the watcher
// keeps answering, so the hooks do not start another that would take them
// all again.
func (w *watcher) degrade(rel string, err error) {
	w.opts.logf("watcher cannot watch the whole work tree; answering every query with a full scan", "path", rel, "error", err)
	w.j.degrade()
	w.releaseWatches()
}

// releaseWatches removes every watch but the cookie directory's.
func (w *watcher) releaseWatches() {
	for _, p := range w.fsw.WatchList() {
		if p != w.cookies {
			_ = w.fsw.Remove(p)
		}
	}
}

// nestedRepo returns the directory (relative, slash-separated) of a nested
// repository whose .git entry name is, and false for any other path (the
// work tree's own .git among them).
func (w *watcher) nestedRepo(name string) (string, bool) {
	if filepath.Base(name) != ".git" {
		return "", false
	}
	dir := filepath.Dir(name)
	if dir == w.opts.Root {
		return "", false
	}
	return w.rel(dir)
}

// rel returns the slash path of name relative to the work tree, and false
// for the root itself, paths outside it and paths in a .git directory.
func (w *watcher) rel(name string) (string, bool) {
	r, err := filepath.Rel(w.opts.Root, name)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	r = filepath.ToSlash(r)
	if r == ".git" || strings.HasPrefix(r, ".git/") || strings.Contains(r, "/.git/") || strings.HasSuffix(r, "/.git") {
		return "", false
	}
	return r, true
}

// watchTree adds a watch on dir and every directory below it (.git
// directories aside), each watch before its directory is read, so that an
// entry made meanwhile is either read or reported. found, when set,
// receives the relative path of every entry read (directories with a
// trailing slash as well); linked, the files with other hard links. A
// directory that vanished meanwhile is skipped; any other failure to add
// a watch (no watches left) is returned.
func (w *watcher) watchTree(dir string, found, linked func(string)) error {
	var walkErr error
	var visit func(d string) bool
	visit = func(d string) bool {
		if err := w.fsw.Add(d); err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				return true
			}
			walkErr = fmt.Errorf("watch %s: %w", d, err)
			return false
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			return true // gone or unreadable: git will say
		}
		for _, e := range entries {
			if e.Name() == ".git" {
				continue
			}
			p := filepath.Join(d, e.Name())
			if found != nil {
				if rel, ok := w.rel(p); ok {
					found(rel)
					if e.IsDir() {
						found(rel + "/")
					}
				}
			}
			if linked != nil && e.Type().IsRegular() {
				if fi, err := e.Info(); err == nil && hardLinked(fi) {
					if rel, ok := w.rel(p); ok {
						linked(rel)
					}
				}
			}
			if e.IsDir() && !visit(p) {
				return false
			}
		}
		return true
	}
	visit(dir)
	return walkErr
}

// serve accepts queries until the listener closes.
func (w *watcher) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go w.handle(c)
	}
}

// handle answers one connection: "query <token>" gets the hook's answer,
// "stop" ends the watcher.
func (w *watcher) handle(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(syncTimeout + time.Second))
	line, err := bufio.NewReader(io.LimitReader(c, 64<<10)).ReadString('\n')
	if err != nil {
		return
	}
	line = strings.TrimSuffix(line, "\n")
	verb, arg, _ := strings.Cut(line, " ")
	switch verb {
	case "stop":
		select {
		case <-w.stop:
		default:
			close(w.stop)
		}
		_, _ = io.WriteString(c, "ok\n")
	case "query":
		w.last.Store(time.Now().UnixNano())
		_, _ = c.Write(w.answer(arg))
	}
}

// answer syncs with the event queue through a cookie file and returns the
// answer to a query for the changes since token; "/" with a token of no
// watcher when that does not happen within syncTimeout.
func (w *watcher) answer(token string) []byte {
	name := "c" + strconv.FormatUint(w.nextID.Add(1), 10)
	ch := make(chan []byte, 1)
	timer := time.NewTimer(syncTimeout)
	defer timer.Stop()
	select {
	case w.queries <- query{token: token, cookie: name, answer: ch}:
	case <-timer.C:
		return Answer(noToken, nil, true)
	case <-w.stop:
		return Answer(noToken, nil, true)
	}
	p := filepath.Join(w.cookies, name)
	// Created exclusively: only a new file makes the event the query
	// waits for.
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return Answer(noToken, nil, true)
	}
	f.Close()
	defer os.Remove(p)
	select {
	case a := <-ch:
		return a
	case <-timer.C:
		return Answer(noToken, nil, true)
	case <-w.stop:
		return Answer(noToken, nil, true)
	}
}

// noToken is the token of an answer no watcher gave: the next query with
// it is answered with "/".
const noToken = tokenPrefix + "none:0"
