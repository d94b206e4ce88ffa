package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// SetAsideSuffix separates a set-aside state file's name from the time it
// was set aside: <id>.json.corrupt-20260102T030405Z.
const SetAsideSuffix = ".json.corrupt-"

// setAsideTime is the layout of the time in a set-aside file's name.
const setAsideTime = "20060102T150405Z"

// setAside renames the state file of id, if it is still the file described
// by info, to a free <id>.json.corrupt-<time> name and returns that path.
func (s *Store) setAside(id string, info fs.FileInfo) (string, error) {
	path := s.Path(id)
	cur, err := os.Lstat(path)
	if err != nil {
		return "", fmt.Errorf("set aside session %s: %w", id, err)
	}
	if fingerprintOf(cur) != fingerprintOf(info) {
		return "", fmt.Errorf("set aside session %s: the file changed meanwhile", id)
	}
	base := filepath.Join(s.dir, id+SetAsideSuffix+s.now().UTC().Format(setAsideTime))
	moved := base
	for n := 2; ; n++ {
		if _, err := os.Lstat(moved); errors.Is(err, fs.ErrNotExist) {
			break
		}
		if n > 100 {
			return "", fmt.Errorf("set aside session %s: no free name", id)
		}
		moved = base + "-" + strconv.Itoa(n)
	}
	if err := os.Rename(path, moved); err != nil {
		return "", fmt.Errorf("set aside session %s: %w", id, err)
	}
	return moved, nil
}

// CorruptFile is a session state file that cannot be read: one a hook set
// aside, or a live state file that no hook has touched since it broke.
type CorruptFile struct {
	// SessionID is the session the file belonged to.
	SessionID string
	// Path is the file's absolute path.
	Path string
	// SetAside is true for a file a hook renamed (the session went on
	// afresh), false for the live <id>.json.
	SetAside bool
	// Err says why a live file cannot be read (nil for set-aside files).
	Err error
}

// SetAsideCount counts the state files hooks set aside, from one directory
// read (no file is parsed); a missing directory is 0.
func (s *Store) SetAsideCount() (int, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("list corrupt sessions: %w", err)
	}
	n := 0
	for _, e := range entries {
		if id, _, ok := strings.Cut(e.Name(), SetAsideSuffix); ok && !e.IsDir() && ValidateID(id) == nil {
			n++
		}
	}
	return n, nil
}

// Corrupt lists the set-aside state files and the live state files that
// cannot be decoded, sorted by path. A missing directory is an empty list.
func (s *Store) Corrupt() ([]CorruptFile, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list corrupt sessions: %w", err)
	}
	var out []CorruptFile
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		name := e.Name()
		if id, _, ok := strings.Cut(name, SetAsideSuffix); ok && ValidateID(id) == nil {
			out = append(out, CorruptFile{SessionID: id, Path: filepath.Join(s.dir, name), SetAside: true})
			continue
		}
		id, ok := stateFileID(name)
		if !ok {
			continue
		}
		data, err := os.ReadFile(s.Path(id))
		if err != nil {
			continue // removed meanwhile
		}
		if _, derr := Decode(data); derr != nil {
			out = append(out, CorruptFile{SessionID: id, Path: s.Path(id), Err: derr})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Discard deletes a file listed by Corrupt (a live one with its index entry
// and lock, as Delete does). A file already gone is not an error.
func (s *Store) Discard(c CorruptFile) error {
	if !c.SetAside {
		return s.Delete(c.SessionID)
	}
	if filepath.Dir(c.Path) != s.dir || !strings.Contains(filepath.Base(c.Path), SetAsideSuffix) {
		return fmt.Errorf("discard %s: not a set-aside session state file", c.Path)
	}
	if err := os.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("discard %s: %w", c.Path, err)
	}
	return nil
}
