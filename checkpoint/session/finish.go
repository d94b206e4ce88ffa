package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A turn end can be finished by a background process after the hook
// returned (the agent had not yet written the turn's end to its
// transcript). That process holds the session's finish lock, <dir>/.index/
// locks/<id>.finish.lock, for its lifetime; what reads the session's
// temporary checkpoints waits for it (AwaitTurnFinish).

// LockTurnFinish takes the session's finish lock and returns the locked
// file, to be handed to the process that finishes the turn (it inherits the
// descriptor, and the lock lasts while it or the caller holds it open).
// Where locks cannot be handed over it returns an error and no file.
func (s *Store) LockTurnFinish(id string) (*os.File, error) {
	if !handOverLocks {
		return nil, errors.New("finish lock: not supported on this platform")
	}
	path, err := s.finishLockPath(id)
	if err != nil {
		return nil, err
	}
	return lockedFile(path, s.lockTimeout)
}

// CanHandOverLocks reports whether a finish lock can be handed to another
// process (flock(2)): without it, turn ends are finished by the hook
// itself.
func CanHandOverLocks() bool { return handOverLocks }

// TryLockTurnFinish takes the session's finish lock if nobody holds it:
// the locked file, or nil when a finishing process holds it.
func (s *Store) TryLockTurnFinish(id string) (*os.File, error) {
	if !handOverLocks {
		return nil, errors.New("finish lock: not supported on this platform")
	}
	path, err := s.finishLockPath(id)
	if err != nil {
		return nil, err
	}
	f, err := lockedFile(path, 0)
	if errors.Is(err, ErrLockTimeout) {
		return nil, nil
	}
	return f, err
}

// WaitTurnFinish waits, at most timeout, for the process finishing the
// session's turn ends, and returns its finish lock held, for the caller
// to finish what is left itself; where locks cannot be handed over it
// returns nil and no error (nothing finishes in the background there).
func (s *Store) WaitTurnFinish(id string, timeout time.Duration) (*os.File, error) {
	if !handOverLocks {
		return nil, nil
	}
	path, err := s.finishLockPath(id)
	if err != nil {
		return nil, err
	}
	f, err := lockedFile(path, timeout)
	if err != nil {
		return nil, fmt.Errorf("wait for the turn ends of session %s: %w", id, err)
	}
	return f, nil
}

// AwaitTurnFinish waits, at most timeout, until no process is finishing a
// turn end of the session. It returns at once when none is.
func (s *Store) AwaitTurnFinish(id string, timeout time.Duration) error {
	if !handOverLocks {
		return nil
	}
	path, err := s.finishLockPath(id)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil // never finished in the background
	}
	f, err := lockedFile(path, timeout)
	if err != nil {
		return fmt.Errorf("wait for the turn end of session %s: %w", id, err)
	}
	return f.Close()
}

func (s *Store) finishLockPath(id string) (string, error) {
	if err := ValidateID(id); err != nil {
		return "", err
	}
	dir := filepath.Join(s.dir, indexDirName, locksDirName)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", fmt.Errorf("finish lock of session %s: %w", id, err)
	}
	return filepath.Join(dir, id+".finish.lock"), nil
}

// AwaitTurnFinishes waits, at most timeout in all, until no process is
// finishing a turn end of any session of the store that still has one
// pending: what rewind does before reading temporary checkpoints. A
// finisher whose turn ends were all written by someone else (see
// strategy.SettleTurnEnds) is not waited for.
func (s *Store) AwaitTurnFinishes(timeout time.Duration) error {
	if !handOverLocks {
		return nil
	}
	paths, _ := filepath.Glob(filepath.Join(s.dir, indexDirName, locksDirName, "*.finish.lock"))
	deadline := time.Now().Add(timeout)
	for _, p := range paths {
		id := strings.TrimSuffix(filepath.Base(p), ".finish.lock")
		if st, err := s.Load(id); err == nil && len(st.TurnEnds) == 0 {
			continue
		}
		left := time.Until(deadline)
		if left < 0 {
			left = 0
		}
		f, err := lockedFile(p, left)
		if err != nil {
			return fmt.Errorf("wait for turn ends finishing in the background: %w", err)
		}
		f.Close()
	}
	return nil
}
