package session

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/lockfile"
)

func TestLocksExclude(t *testing.T) {
	t.Parallel()
	impls := map[string]func(string, time.Duration, func(string, string)) (func(), error){
		"platform": lockFile,
		"excl":     lockFileExcl,
	}
	for name, lock := range impls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "lock")
			var mu sync.Mutex
			inside, maxInside := 0, 0
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 10 {
						unlock, err := lock(path, 10*time.Second, nil)
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						inside++
						maxInside = max(maxInside, inside)
						mu.Unlock()
						time.Sleep(100 * time.Microsecond)
						mu.Lock()
						inside--
						mu.Unlock()
						unlock()
					}
				}()
			}
			wg.Wait()
			if maxInside != 1 {
				t.Fatalf("%d holders at once", maxInside)
			}
			// Timeout while held.
			unlock, err := lock(path, time.Second, nil)
			must(t, err)
			if _, err := lock(path, 20*time.Millisecond, nil); !errors.Is(err, ErrLockTimeout) {
				t.Fatalf("second lock = %v, want ErrLockTimeout", err)
			}
			unlock()
		})
	}
}

// The O_EXCL lock of platforms without flock(2) breaks a lock whose
// owner is gone (or an old empty one), never one held by a live process,
// however old.
func TestExclLockStale(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lock")
	old := time.Now().Add(-time.Hour)
	must(t, os.WriteFile(path+".excl", nil, 0o600))
	must(t, os.Chtimes(path+".excl", old, old))
	unlock, err := lockFileExcl(path, 50*time.Millisecond, nil)
	if err != nil {
		t.Fatalf("stale lock not broken: %v", err)
	}
	unlock()

	live := lockfile.Self().Encode()
	must(t, os.WriteFile(path+".excl", live, 0o600))
	must(t, os.Chtimes(path+".excl", old, old))
	if _, err := lockFileExcl(path, 50*time.Millisecond, nil); !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("lock held by a live process: %v, want ErrLockTimeout", err)
	}
	if b, _ := os.ReadFile(path + ".excl"); string(b) != string(live) {
		t.Fatalf("the live lock became %q", b)
	}
}
