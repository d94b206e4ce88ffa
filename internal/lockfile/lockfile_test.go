package lockfile_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/lockfile"
	"github.com/entirecli/entire/internal/lockfile/lockfiletest"
)

// plant writes a lock file with content, modified age ago.
func plant(t *testing.T, path string, content []byte, age time.Duration) {
	t.Helper()
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-age)
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

func TestAcquireExcludes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.lock")
	var mu sync.Mutex
	inside, most := 0, 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				l, err := lockfile.Acquire(path, lockfile.Options{Timeout: 10 * time.Second, OnBreak: func(p, why string) { t.Errorf("broke a live lock: %s", why) }})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				inside++
				most = max(most, inside)
				mu.Unlock()
				time.Sleep(50 * time.Microsecond)
				mu.Lock()
				inside--
				mu.Unlock()
				if err := l.Release(); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if most != 1 {
		t.Fatalf("%d holders at once", most)
	}
}

// A lock appears with its owner record already in it (a process killed
// while taking it leaves no empty lock, which only age could judge), and
// taking it leaves no other file behind.
func TestLockAppearsWithRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "x.lock")
	l, err := lockfile.Acquire(path, lockfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		t.Fatalf("lock content %q (%v)", b, err)
	}
	if _, err := lockfile.Acquire(path, lockfile.Options{}); !errors.Is(err, lockfile.ErrLocked) {
		t.Fatalf("second Acquire: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// A lock left by a process that is gone is removed, and the removal is
// reported; one held by a live process is never broken, however old.
func TestStaleAndLiveOwners(t *testing.T) {
	t.Parallel()
	host, _ := os.Hostname()
	me := lockfile.Self()
	cases := []struct {
		name    string
		content []byte
		age     time.Duration
		stale   string // part of the reason, "" when the lock must stay
	}{
		{"dead owner", lockfiletest.DeadOwner(t).Encode(), 0, "is not running"},
		{"live owner, old", me.Encode(), 24 * time.Hour, ""},
		{"owner of another host", lockfile.Owner{PID: lockfiletest.DeadOwner(t).PID, Host: host + "-elsewhere", Nonce: "n"}.Encode(), 24 * time.Hour, ""},
		{"empty, fresh", nil, 0, ""},
		{"empty, old", nil, 2 * lockfile.EmptyStaleAfter, "no owner record"},
		{"record cut short, old", []byte(`{"entire_lock":1,"pid":`), 2 * lockfile.EmptyStaleAfter, "no owner record"},
		{"git's lock with a hash, old", []byte(strings.Repeat("ab", 20) + "\n"), 24 * time.Hour, ""},
	}
	if runtime.GOOS == "linux" {
		reused := me
		reused.Start = "1" // our pid, started at another time: the owner died and the pid was reused
		cases = append(cases, struct {
			name    string
			content []byte
			age     time.Duration
			stale   string
		}{"reused pid", reused.Encode(), 0, "reused"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "ref.lock")
			plant(t, path, c.content, c.age)
			var broken []string
			l, err := lockfile.Acquire(path, lockfile.Options{Timeout: 20 * time.Millisecond, OnBreak: func(p, why string) { broken = append(broken, why) }})
			if c.stale == "" {
				if !errors.Is(err, lockfile.ErrLocked) {
					t.Fatalf("Acquire = %v, want lockfile.ErrLocked", err)
				}
				if b, _ := os.ReadFile(path); string(b) != string(c.content) {
					t.Errorf("the lock changed to %q", b)
				}
				return
			}
			if err != nil {
				t.Fatalf("stale lock not broken: %v", err)
			}
			if len(broken) != 1 || !strings.Contains(broken[0], c.stale) {
				t.Errorf("breaks reported: %q, want one with %q", broken, c.stale)
			}
			var o lockfile.Owner
			if err := json.Unmarshal(mustRead(t, path), &o); err != nil || o.PID != os.Getpid() {
				t.Errorf("the new lock's record: %+v %v", o, err)
			}
			must(t, l.Release())
			if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Release left the lock: %v", err)
			}
			if m, _ := filepath.Glob(path + ".*"); len(m) != 0 {
				t.Errorf("left behind: %v", m)
			}
		})
	}
}

// Release leaves alone a lock that is no longer its own.
func TestReleaseKeepsAnotherLock(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.lock")
	l, err := lockfile.Acquire(path, lockfile.Options{})
	must(t, err)
	must(t, os.Remove(path))
	plant(t, path, []byte("someone else's"), 0)
	must(t, l.Release())
	if b := mustRead(t, path); string(b) != "someone else's" {
		t.Errorf("lock now %q", b)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	return b
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The spare file of a process killed between writing its record and
// linking it to the lock's name is removed once that process is gone;
// a live process's spare and any other file are left alone.
func TestRemoveLeftover(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dead := lockfiletest.DeadOwner(t).Encode()
	for _, c := range []struct {
		path    string
		removed bool
	}{
		{write("mark.123-abc.new.lock", dead), true},
		{write("mark.123-abd.stale.lock", dead), true},
		{write("mark.124-abc.new.lock", lockfile.Self().Encode()), false},
		{write("mark", dead), false},
		{write("other.new.lock", []byte("not a record")), false},
	} {
		if got := lockfile.RemoveLeftover(c.path); got != c.removed {
			t.Errorf("RemoveLeftover(%s) = %v, want %v", filepath.Base(c.path), got, c.removed)
		}
		if _, err := os.Stat(c.path); (err == nil) == c.removed {
			t.Errorf("%s: exists = %v after RemoveLeftover", filepath.Base(c.path), err == nil)
		}
	}
}
