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
	entries, err := s.entries("list corrupt sessions")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if _, ok := setAsideID(e.Name()); ok && !e.IsDir() {
			n++
		}
	}
	return n, nil
}

// setAsideID returns the session ID of a set-aside state file's name
// (<id>.json.corrupt-<time>), or false for other names.
func setAsideID(name string) (string, bool) {
	id, _, ok := strings.Cut(name, SetAsideSuffix)
	if !ok || ValidateID(id) != nil {
		return "", false
	}
	return id, true
}

// Corrupt lists the set-aside state files and the live state files that
// cannot be decoded, sorted by path. A missing directory is an empty list.
func (s *Store) Corrupt() ([]CorruptFile, error) {
	entries, err := s.entries("list corrupt sessions")
	if err != nil {
		return nil, err
	}
	var out []CorruptFile
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		name := e.Name()
		if id, ok := setAsideID(name); ok {
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
	if _, ok := setAsideID(filepath.Base(c.Path)); !ok || filepath.Dir(c.Path) != s.dir {
		return fmt.Errorf("discard %s: not a set-aside session state file", c.Path)
	}
	if err := os.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("discard %s: %w", c.Path, err)
	}
	return nil
}
