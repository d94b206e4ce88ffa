package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// faultsDirName holds one file per session with hook failures:
// <dir>/.faults/<id>.json. It is not part of Entire 0.4.x's layout, which
// ignores it.
const faultsDirName = ".faults"

// maxFaultMessage bounds the stored message of the last failure, in bytes.
const maxFaultMessage = 1 << 10

// Faults counts a session's hook failures since its last successful hook.
// Messages come from errors and may hold anything a payload held: escape
// them before printing them on a terminal.
type Faults struct {
	// Count is the number of failed hooks since the last successful one.
	Count int `json:"count"`
	// LastHook is the hook verb of the last failure ("stop").
	LastHook string `json:"last_hook,omitempty"`
	// LastMessage is the error of the last failure, cut to 1 KiB.
	LastMessage string `json:"last_message"`
	// LastAt is when the last failure happened.
	LastAt time.Time `json:"last_at"`
}

func (s *Store) faultsPath(id string) string {
	return filepath.Join(s.dir, faultsDirName, id+".json")
}

// RecordFault adds a failure of hook to the session's Faults (read, count,
// replace atomically). Concurrent records of one session may lose a count;
// the last message is always one of theirs. An invalid id is an error.
func (s *Store) RecordFault(id, hook string, cause error) error {
	if err := ValidateID(id); err != nil {
		return fmt.Errorf("record hook failure: %w", err)
	}
	f, err := s.Faults(id)
	if err != nil {
		f = Faults{} // an unreadable record starts again
	}
	msg := ""
	if cause != nil {
		msg = cause.Error()
	}
	if len(msg) > maxFaultMessage {
		msg = msg[:maxFaultMessage]
	}
	f.Count++
	f.LastHook, f.LastMessage, f.LastAt = hook, msg, s.now().UTC()
	data, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("record hook failure of %s: %w", id, err)
	}
	path := s.faultsPath(id)
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return fmt.Errorf("record hook failure of %s: %w", id, err)
	}
	if _, err := writeAtomic(path, append(data, '\n'), 0o600, false); err != nil {
		return fmt.Errorf("record hook failure of %s: %w", id, err)
	}
	return nil
}

// ClearFaults forgets the session's failures, after a successful hook. It
// costs one unlink; a session without failures is not an error.
func (s *Store) ClearFaults(id string) error {
	if ValidateID(id) != nil {
		return nil
	}
	if err := os.Remove(s.faultsPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clear hook failures of %s: %w", id, err)
	}
	return nil
}

// Faults returns the session's failures since its last successful hook;
// the zero Faults when there were none.
func (s *Store) Faults(id string) (Faults, error) {
	var f Faults
	if err := ValidateID(id); err != nil {
		return f, fmt.Errorf("read hook failures: %w", err)
	}
	data, err := os.ReadFile(s.faultsPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("read hook failures of %s: %w", id, err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return Faults{}, fmt.Errorf("read hook failures of %s: %w", id, err)
	}
	return f, nil
}
