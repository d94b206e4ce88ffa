package lockfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// EmptyStaleAfter is the age from which a lock without an owner record
// (empty, or an owner record cut short) is taken for abandoned: whoever
// created it died before writing its record, since writing it takes
// microseconds. Git's own lock files are empty, or hold a ref's new value,
// while git writes them; a hash-only lock is never broken.
const EmptyStaleAfter = 60 * time.Second

// ErrLocked is returned (wrapped, with who holds it) when a lock stays
// held by a live process, or by something that cannot be judged, for
// longer than the timeout.
var ErrLocked = errors.New("lockfile: locked")

// Options configures Acquire and Break.
type Options struct {
	// Timeout bounds the wait for a lock that is held; zero tries once.
	Timeout time.Duration
	// OnBreak, when set, is told of every stale lock removed, with the
	// reason, for the log.
	OnBreak func(path, reason string)
}

// Lock is a held lock file.
type Lock struct {
	path   string
	record []byte
}

// Path is the lock file's path.
func (l *Lock) Path() string { return l.path }

// Acquire creates the lock file path exclusively (O_EXCL, as git creates
// <ref>.lock) holding this process's owner record, mode 0644. While path
// exists it breaks it when it is stale (see Break) and otherwise polls,
// at most opts.Timeout, then returns ErrLocked. Its directory must exist.
func Acquire(path string, opts Options) (*Lock, error) {
	deadline := time.Now().Add(opts.Timeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		l, err := create(path)
		if err == nil {
			return l, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if Break(path, opts) {
			continue
		}
		if !time.Now().Before(deadline) {
			_, why := judgeFile(path)
			return nil, fmt.Errorf("%w: %s exists (%s)", ErrLocked, path, why)
		}
		time.Sleep(delay)
	}
}

// create makes the lock file path appear with this process's owner record
// already in it: the record is written to a file of its own, which is then
// hard-linked to path (link fails when path exists, as O_EXCL does). A
// process killed at any moment leaves no lock without a record (only,
// killed before the link, a spare file git ignores, since its name ends in
// ".lock"). Where the file system has no hard links it falls back to
// creating path with O_EXCL and writing the record in one write.
func create(path string) (*Lock, error) {
	rec := Self().Encode()
	spare := path + "." + strconv.Itoa(os.Getpid()) + "-" + nonce() + ".new.lock"
	if err := writeNew(spare, rec); err != nil {
		return nil, err
	}
	err := os.Link(spare, path)
	_ = os.Remove(spare)
	switch {
	case err == nil:
		return &Lock{path: path, record: rec}, nil
	case errors.Is(err, fs.ErrExist):
		return nil, err
	}
	// No hard links here: O_EXCL, and one write, so that a reader sees the
	// whole record or an empty file.
	if err := writeNew(path, rec); err != nil {
		return nil, err
	}
	return &Lock{path: path, record: rec}, nil
}

// writeNew creates path exclusively holding data, removing it again when
// the write fails.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return err
}

// Release removes the lock file, unless it no longer holds this lock's
// owner record (it was broken and taken anew). A missing file is not an
// error.
func (l *Lock) Release() error {
	b, err := readHead(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(b, l.record) {
		return nil
	}
	if err := os.Remove(l.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Break removes the lock file path when it is stale, and reports whether
// path is now free (removed, or already gone). A lock is stale when its
// owner record names a process of this host that is not running (no such
// pid, or a pid reused by a process started later), or when it has no
// owner record, is empty (or holds an owner record cut short) and is older
// than EmptyStaleAfter. A lock held by a live process, one of another
// host, and one holding anything else (git's lock with a ref's new value)
// are never broken.
//
// Two processes may judge the same stale lock at once, and one of them
// take the lock anew before the other removes it: the lock is therefore
// first renamed aside, judged again there, and put back unless it is
// still the stale lock judged.
func Break(path string, opts Options) bool {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	stale, why := judge(path, fi)
	if !stale {
		return false
	}
	aside := path + "." + strconv.Itoa(os.Getpid()) + "-" + nonce() + ".stale.lock"
	if err := os.Rename(path, aside); err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	if afi, err := os.Lstat(aside); err == nil && os.SameFile(fi, afi) && afi.ModTime().Equal(fi.ModTime()) {
		if again, _ := judge(aside, afi); again {
			_ = os.Remove(aside)
			if opts.OnBreak != nil {
				opts.OnBreak(path, why)
			}
			return true
		}
	}
	// Another process took the lock in between: give it back, unless a
	// third one holds path by now (then the displaced owner's Release
	// leaves the new lock alone).
	if err := os.Link(aside, path); err != nil && !errors.Is(err, fs.ErrExist) {
		_ = os.Rename(aside, path)
	}
	_ = os.Remove(aside)
	return false
}

// RemoveLeftover removes the file at path when it is a leftover of a
// process killed while it took or broke a lock (a spare "<lock>.<pid>-
// <nonce>.new.lock" or an aside "….stale.lock", both holding their
// maker's owner record) and that process is gone. It reports whether it
// removed it; any other file is left alone.
func RemoveLeftover(path string) bool {
	name := filepath.Base(path)
	if !strings.HasSuffix(name, ".new.lock") && !strings.HasSuffix(name, ".stale.lock") {
		return false
	}
	b, err := readHead(path)
	if err != nil {
		return false
	}
	o, ok := parseOwner(b)
	if !ok {
		return false
	}
	if live, _ := o.running(); live {
		return false
	}
	return os.Remove(path) == nil
}

// judgeFile is judge for a path not yet stat'ed.
func judgeFile(path string) (bool, string) {
	fi, err := os.Lstat(path)
	if err != nil {
		return false, err.Error()
	}
	return judge(path, fi)
}

// judge decides whether the lock file at path (whose stat data is fi) is
// stale, and says why or who holds it.
func judge(path string, fi os.FileInfo) (bool, string) {
	b, err := readHead(path)
	if err != nil {
		return false, err.Error()
	}
	if o, ok := parseOwner(b); ok {
		live, why := o.running()
		return !live, why
	}
	if len(bytes.TrimSpace(b)) != 0 && !bytes.HasPrefix(b, []byte(recordMagic)) {
		return false, "no owner record: git's own lock"
	}
	age := time.Since(fi.ModTime()).Round(time.Second)
	if age > EmptyStaleAfter {
		return true, "no owner record and " + age.String() + " old"
	}
	return false, "no owner record yet, " + age.String() + " old"
}

// readHead reads the start of a lock file: an owner record is far
// shorter.
func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4096))
}

func nonce() string { return strconv.FormatUint(rand.Uint64(), 36) }
