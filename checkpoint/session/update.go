package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// locksDirName holds one lock file per session, used by Update.
const locksDirName = "locks"

// Update is a locked read-modify-write of one session: it takes the
// session's lock (an flock on <dir>/.index/locks/<id>.lock, shared with
// other processes), loads the state, calls fn, and saves the result unless
// fn returns an error, which Update then returns unchanged. fn receives a
// new State with only SessionID set and exists == false when there is no
// state file yet. Concurrent Updates of one session, from any process, are
// serialised, so none of their changes is lost; plain Save does not take
// the lock and can still overwrite an Update. A corrupt state file is an
// error (fn is not called).
func (s *Store) Update(id string, fn func(st *State, exists bool) error) error {
	if err := ValidateID(id); err != nil {
		return fmt.Errorf("update session: %w", err)
	}
	dir := filepath.Join(s.dir, indexDirName, locksDirName)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("update session %s: %w", id, err)
	}
	unlock, err := lockFile(filepath.Join(dir, id+".lock"), s.lockTimeout, s.onLockBreak)
	if err != nil {
		return fmt.Errorf("update session %s: %w", id, err)
	}
	defer unlock()
	st, err := s.Load(id)
	exists := err == nil
	switch {
	case errors.Is(err, ErrNotFound):
		st = &State{SessionID: id}
	case err != nil:
		return err
	}
	if err := fn(st, exists); err != nil {
		return err
	}
	st.SessionID = id
	return s.Save(st)
}
