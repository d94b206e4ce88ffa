package session

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/atomicfile"
)

// DirName is the name of the session state directory inside the git common
// dir.
const DirName = "entire-sessions"

// ErrLockTimeout is returned (wrapped) when the index lock cannot be taken
// in time (another process holds it for seconds).
var ErrLockTimeout = errors.New("session: lock timeout")

// Options configures a Store.
type Options struct {
	// GitCommonDir is `git rev-parse --git-common-dir` (absolute). The
	// store lives in <GitCommonDir>/entire-sessions, shared by all
	// worktrees. Required.
	GitCommonDir string
	// Now is the clock used for index timestamps; nil means time.Now.
	Now func() time.Time
	// OnIndexError, if set, receives errors of index maintenance that do
	// not fail the operation (the index heals itself later). Nil drops
	// them.
	OnIndexError func(error)
	// LockTimeout bounds the wait for the index lock; zero means 5 s.
	LockTimeout time.Duration
	// OnCorrupt, if set, makes Load (and so Update) set a state file that
	// cannot be decoded aside, renamed to <id>.json.corrupt-<UTC time>
	// (see SetAsideSuffix), and answer as if the session had no state, so
	// that it starts afresh; OnCorrupt is then called with the new path
	// and the decode error. Hooks set it; commands that only read leave it
	// nil and get an error wrapping ErrCorrupt instead.
	OnCorrupt func(id, movedTo string, cause error)
	// OnLockBreak, if set, is told of a stale lock file removed (where
	// locks are files, not flock(2): see lockFileExcl).
	OnLockBreak func(path, reason string)
}

// Store reads and writes the session state files of one repository. A Store
// is safe for concurrent use by several goroutines and processes: state
// files are replaced atomically and the index is updated under a file lock.
// Concurrent Saves of the same session are last-writer-wins.
type Store struct {
	dir         string
	now         func() time.Time
	onIndexErr  func(error)
	onCorrupt   func(id, movedTo string, cause error)
	lockTimeout time.Duration
	onLockBreak func(path, reason string)
}

// NewStore returns the store of opts.GitCommonDir. It touches no files; the
// directory is created on the first Save.
func NewStore(opts Options) *Store {
	s := &Store{
		dir:         filepath.Join(opts.GitCommonDir, DirName),
		now:         opts.Now,
		onIndexErr:  opts.OnIndexError,
		onCorrupt:   opts.OnCorrupt,
		lockTimeout: opts.LockTimeout,
		onLockBreak: opts.OnLockBreak,
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.lockTimeout <= 0 {
		s.lockTimeout = 5 * time.Second
	}
	return s
}

// Dir returns the state directory, <git-common-dir>/entire-sessions.
func (s *Store) Dir() string { return s.dir }

// Path returns the state file path of id (not validated).
func (s *Store) Path(id string) string { return filepath.Join(s.dir, id+".json") }

// Load reads and decodes (with migration, see Decode) the state of id. A
// missing file returns an error wrapping ErrNotFound; an invalid id one
// wrapping ErrInvalidID; a file that cannot be decoded one wrapping
// ErrCorrupt, unless Options.OnCorrupt is set: the file is then set aside
// and the error wraps ErrNotFound.
func (s *Store) Load(id string) (*State, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	data, info, err := readWithInfo(s.Path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	st, err := Decode(data)
	if err != nil {
		if s.onCorrupt != nil && info != nil {
			if moved, merr := s.setAside(id, info); merr == nil {
				s.onCorrupt(id, moved, err)
				return nil, fmt.Errorf("load session %s: %w (unreadable state set aside as %s)", id, ErrNotFound, moved)
			}
		}
		return nil, fmt.Errorf("load session %s: %w: %w", id, ErrCorrupt, err)
	}
	return st, nil
}

// Save writes st to <dir>/<st.SessionID>.json atomically (temp file in the
// same directory, fsync, rename), mode 0600, directory 0750, 2-space JSON
// with a trailing newline, then records it in the index. An error means the
// state file was not replaced. Index failures do not fail Save (readers
// repair the index); they go to Options.OnIndexError.
func (s *Store) Save(st *State) error {
	if st == nil {
		return errors.New("save session: nil state")
	}
	if err := ValidateID(st.SessionID); err != nil {
		return fmt.Errorf("save session: %w", err)
	}
	data, err := Encode(st)
	if err != nil {
		return fmt.Errorf("save session %s: %w", st.SessionID, err)
	}
	if err := os.MkdirAll(s.dir, 0o750); err != nil {
		return fmt.Errorf("save session %s: create dir: %w", st.SessionID, err)
	}
	info, err := writeAtomic(s.Path(st.SessionID), data, 0o600, true)
	if err != nil {
		return fmt.Errorf("save session %s: %w", st.SessionID, err)
	}
	e := entryFor(st, fingerprintOf(info), s.now())
	s.reportIndexErr(s.updateIndex(map[string]*indexEntry{st.SessionID: e}))
	return nil
}

// Delete removes the state file of id, its index entry and its Update lock
// file. A missing file is not an error. Deleting a session while another
// process Updates it may let that Update recreate the file.
func (s *Store) Delete(id string) error {
	if err := ValidateID(id); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	if err := os.Remove(s.Path(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if _, err := os.Stat(s.indexPath()); err == nil {
		s.reportIndexErr(s.updateIndex(map[string]*indexEntry{id: nil}))
	}
	_ = os.Remove(filepath.Join(s.dir, indexDirName, locksDirName, id+".lock"))
	_ = s.ClearFaults(id)
	return nil
}

// List parses every state file, sorted by session ID. Files that cannot be
// read or decoded are skipped and reported in corrupt (one error each,
// naming the file). err is non-nil only if the directory cannot be read; a
// missing directory is an empty list. List costs a parse of every file; hot
// paths use Find instead.
func (s *Store) List() (states []*State, corrupt []error, err error) {
	ids, err := s.ids()
	if err != nil {
		return nil, nil, err
	}
	for _, id := range ids {
		st, lerr := s.Load(id)
		if lerr != nil {
			if !errors.Is(lerr, ErrNotFound) { // deleted meanwhile
				corrupt = append(corrupt, lerr)
			}
			continue
		}
		states = append(states, st)
	}
	return states, corrupt, nil
}

// ids lists the session IDs that have a state file, sorted.
func (s *Store) ids() ([]string, error) {
	entries, err := s.entries("list sessions")
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if id, ok := stateFileID(e.Name()); ok && !e.IsDir() {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// entries reads the state directory; a missing one has no entries. what
// names the operation in the error.
func (s *Store) entries(what string) ([]os.DirEntry, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return entries, nil
}

// stateFileID returns the session ID of a state file name, or false for
// other names (temp files, the index directory).
func stateFileID(name string) (string, bool) {
	id, ok := strings.CutSuffix(name, ".json")
	if !ok || ValidateID(id) != nil || strings.HasPrefix(name, ".") {
		return "", false
	}
	return id, true
}

func (s *Store) reportIndexErr(err error) {
	if err != nil && s.onIndexErr != nil {
		s.onIndexErr(err)
	}
}

// writeAtomic writes data to a temp file next to path, fsyncs it (when
// sync; the directory is not synced), sets perm, and renames it over path.
// It returns the FileInfo of the written file (taken before the rename, so
// it describes exactly these bytes).
func writeAtomic(path string, data []byte, perm os.FileMode, sync bool) (fs.FileInfo, error) {
	opts := atomicfile.Options{Perm: perm, Sync: atomicfile.SyncFile, NoMkdir: true}
	if !sync {
		opts.Sync = atomicfile.SyncNone
	}
	info, err := atomicfile.WriteWith(path, data, opts)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return info, nil
}

// readWithInfo reads path and returns the FileInfo of the opened file,
// checked before and after the read so that an in-place rewrite during the
// read is detected (the fingerprint then does not match and the caller
// retries later).
func readWithInfo(path string) ([]byte, fs.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	after, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fingerprintOf(before) != fingerprintOf(after) {
		return data, nil, nil
	}
	return data, after, nil
}
