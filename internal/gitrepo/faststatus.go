package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/lockfile"
)

// FastStatus is how Status avoids scanning the whole work tree: git runs
// on a private copy of the user's index (GIT_INDEX_FILE), with its
// untracked cache and an fsmonitor hook given on the command line (`git
// -c`). The user's index and configuration are never written: git writes
// the cache extensions and the monitor's token into the private index
// only. The copy is refreshed whenever the user's index changed (size,
// modification time or inode), with its modification time kept, so that
// git's racy-entry check judges the copy as it would the original.
type FastStatus struct {
	// IndexFile is the private index (absolute path).
	IndexFile string
	// FSMonitor is the shell command git runs as core.fsmonitor, speaking
	// the hook protocol version 2; "" runs without a monitor (the
	// untracked cache alone).
	FSMonitor string
	// Changes, when set, asks the work tree's watcher for the paths
	// changed since a token (fswatch.Changes; "" asks for the current
	// token alone). With CacheFile, a status then judges again only the
	// paths that changed since the last one (see incstatus.go) instead of
	// having git read the whole index.
	Changes func(token string) (newToken string, paths []string, all bool)
	// CacheFile is where the last status is kept for the next one.
	CacheFile string
	// staleLock is the age from which the private index's lock is taken
	// for abandoned; zero means lockfile.EmptyStaleAfter (tests shorten
	// it).
	staleLock time.Duration
}

// errIndexBusy is returned when another process holds the private index's
// lock while it must be refreshed.
var errIndexBusy = errors.New("private index is locked")

// fastStatus runs the status of Status on the private index.
func (r *Repo) fastStatus(ctx context.Context, fs *FastStatus) ([]StatusEntry, error) {
	token := ""
	if fs.Changes != nil && fs.CacheFile != "" {
		c := readStatusCache(fs.CacheFile)
		since := ""
		if c != nil {
			since = c.Token
		}
		var changed []string
		var all bool
		token, changed, all = fs.Changes(since)
		if c != nil && !all {
			entries, err := r.incrementalStatus(ctx, fs.CacheFile, c, token, changed)
			if err == nil {
				if r.Log != nil {
					r.Log.Debug("incremental status", "changed", len(changed))
				}
				return entries, nil
			}
			if r.Log != nil {
				var full *errFullStatus
				if errors.As(err, &full) {
					r.Log.Debug("incremental status: running a full one", "why", full.why)
				} else {
					r.Log.Warn("incremental status failed; running a full one", "error", err)
				}
			}
		}
	}
	b, keep := r.baseline(ctx, token)
	entries, err := r.fullFastStatus(ctx, fs)
	if err == nil && keep {
		r.keep(fs.CacheFile, b, entries)
	}
	return entries, err
}

// fullFastStatus is git's status on the private index.
func (r *Repo) fullFastStatus(ctx context.Context, fs *FastStatus) ([]StatusEntry, error) {
	fs.breakStaleLock()
	// Taken before the copy, which writes a shared index of its own.
	shared := sharedIndexes(r.GitDir)
	if err := r.syncPrivateIndex(ctx, fs.IndexFile); err != nil {
		return nil, err
	}
	// The untracked cache is kept for the flags of the configured
	// status.showUntrackedFiles: "all" matches -uall, else git bypasses
	// the cache.
	args := append([]string{"-c", "core.untrackedCache=true", "-c", "status.showUntrackedFiles=all"}, splitIndexArgs...)
	if fs.FSMonitor != "" {
		args = append(args, "-c", "core.fsmonitor="+fs.FSMonitor, "-c", "core.fsmonitorHookVersion=2")
	} else {
		args = append(args, "-c", "core.fsmonitor=false")
	}
	// No --no-optional-locks: git must write the private index (its
	// cache extensions and the monitor's token); it is nobody else's.
	args = append(args, "status", "--porcelain=v1", "-z", "-uall", "--no-renames", "--ignore-submodules=all")
	g := r.Runner()
	g.Set = []string{"GIT_INDEX_FILE=" + fs.IndexFile}
	out, err := g.Run(ctx, args...)
	recordSharedIndexes(r.GitDir, fs.IndexFile+".shared", shared, func() string {
		p, err := g.Run(ctx, "rev-parse", "--shared-index-path")
		if err != nil || len(bytes.TrimSpace(p)) == 0 {
			return ""
		}
		return filepath.Base(string(bytes.TrimSpace(p)))
	})
	if err != nil {
		if ctx.Err() == nil {
			// The copy may be what failed (unreadable, its shared index
			// gone): the next status makes a new one rather than fail
			// the same way until the user's index changes.
			_ = os.Remove(fs.IndexFile + stampSuffix)
		}
		return nil, fmt.Errorf("git status (private index): %w", err)
	}
	return ParseStatus(out)
}

// breakStaleLock removes the private index's lock when it was left by a
// process that died holding it (a hook killed while it copied the index,
// a git status killed while it wrote it): a lock nobody removes would keep
// every later copy out (each status falling back to the plain one) and git
// from writing its caches. Both holders hold it for the length of one
// status, far below the age judged (by the inode's change time: the copy
// sets the lock's modification time back to the user index's).
func (fs *FastStatus) breakStaleLock() {
	lock := fs.IndexFile + ".lock"
	fi, err := os.Lstat(lock)
	if err != nil {
		return
	}
	stale := fs.staleLock
	if stale == 0 {
		stale = lockfile.EmptyStaleAfter
	}
	if time.Since(changeTime(fi)) > stale {
		_ = os.Remove(lock)
	}
}

// stampSuffix names the file beside the private index that holds the
// indexStamp of the user's index it was copied from.
const stampSuffix = ".src"

// indexStamp identifies one version of an index file.
func indexStamp(fi os.FileInfo) string {
	return strconv.FormatInt(fi.Size(), 10) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10) + " " + strconv.FormatUint(inode(fi), 10)
}

// syncPrivateIndex makes private a copy of the user's index unless it
// already is one of its current version. The copy is written under git's
// own lock of the private index (private+".lock"), so that a git status
// running on the old copy does not write it back over the new one (git
// checks the file it read is unchanged before it writes).
func (r *Repo) syncPrivateIndex(ctx context.Context, private string) error {
	user := filepath.Join(r.GitDir, "index")
	fi, err := os.Stat(user)
	if err != nil {
		return fmt.Errorf("user index: %w", err)
	}
	stamp := indexStamp(fi)
	stampFile := private + stampSuffix
	if b, err := os.ReadFile(stampFile); err == nil && strings.TrimSpace(string(b)) == stamp {
		if _, err := os.Stat(private); err == nil {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(private), 0o700); err != nil {
		return fmt.Errorf("private index: %w", err)
	}
	lock := private + ".lock"
	out, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return errIndexBusy
	}
	if err != nil {
		return fmt.Errorf("private index: %w", err)
	}
	done := false
	defer func() {
		if !done {
			out.Close()
			os.Remove(lock)
		}
	}()
	in, err := os.Open(user)
	if err != nil {
		return fmt.Errorf("user index: %w", err)
	}
	defer in.Close()
	// The stamp of what is copied: the file may have been replaced since
	// the first look.
	if fi, err = in.Stat(); err != nil {
		return fmt.Errorf("user index: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		return fmt.Errorf("copy the user index: %w", err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("copy the user index: %w", err)
	}
	if err := os.Chtimes(lock, fi.ModTime(), fi.ModTime()); err != nil {
		return fmt.Errorf("copy the user index: %w", err)
	}
	if err := os.Rename(lock, private); err != nil {
		return fmt.Errorf("copy the user index: %w", err)
	}
	done = true
	// Index format 4 compresses each path against the one before it: on
	// 100k files 8.1 MB instead of 11.1, a copy that stays in the git dir.
	// Git rewrites it as it rewrites any index, smudging racily clean
	// entries, so the copy's kept time is judged as before. On failure the
	// copy stays in its own version.
	g := r.Runner()
	g.Set = []string{"GIT_INDEX_FILE=" + private}
	_, _ = g.Run(ctx, "-c", "core.splitIndex=false", "-c", "splitIndex.sharedIndexExpire=never", "update-index", "--index-version", "4")
	if err := os.WriteFile(stampFile, []byte(indexStamp(fi)+"\n"), 0o600); err != nil {
		return fmt.Errorf("private index stamp: %w", err)
	}
	return nil
}
