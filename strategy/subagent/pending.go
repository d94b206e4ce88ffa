package subagent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/conclusion"
	"github.com/entirecli/entire/internal/atomicfile"
)

// PendingDir is the directory of pending task records, relative to the
// repository root (below session.TmpDir, which entire keeps out of git).
const PendingDir = session.TmpDir + "/subagents"

// ErrNotFound is returned (wrapped) by Pending.Get when there is no record.
var ErrNotFound = errors.New("subagent: no pending task record")

// Pending is the store of task records that no committed checkpoint holds
// yet, one directory per session and one file per task. Writes are atomic
// (temporary file, fsync, rename); concurrent writers of one key keep the
// last write. The zero value is not usable; use NewPending.
type Pending struct {
	dir string
}

// PendingTask is a pending record and its key.
type PendingTask struct {
	// Key is the agent ID (or tool use ID) the record is stored under.
	Key string
	// Task is the record; Task.ID may differ from Key.
	Task *conclusion.Task
}

// NewPending returns the pending store of the repository at repoRoot. It
// does no I/O.
func NewPending(repoRoot string) *Pending {
	return &Pending{dir: filepath.Join(repoRoot, filepath.FromSlash(PendingDir))}
}

// path validates sessionID and key (they become path elements) and
// returns the record's file.
func (p *Pending) path(sessionID, key string) (string, error) {
	if err := session.ValidateID(sessionID); err != nil {
		return "", err
	}
	if err := session.ValidateToolUseID(key); err != nil {
		return "", err
	}
	return filepath.Join(p.dir, sessionID, key+".json"), nil
}

// Put stores t under sessionID and key (an agent ID or tool use ID,
// ^[a-zA-Z0-9_-]+$), replacing any earlier record.
func (p *Pending) Put(sessionID, key string, t *conclusion.Task) error {
	path, err := p.path(sessionID, key)
	if err != nil {
		return fmt.Errorf("store pending task: %w", err)
	}
	data, err := Encode(t)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return fmt.Errorf("store pending task %s: %w", key, err)
	}
	return nil
}

// Get returns the record stored under sessionID and key; an error wrapping
// ErrNotFound when there is none, ErrCorrupt when it cannot be read.
func (p *Pending) Get(sessionID, key string) (*conclusion.Task, error) {
	path, err := p.path(sessionID, key)
	if err != nil {
		return nil, fmt.Errorf("read pending task: %w", err)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	if err != nil {
		return nil, fmt.Errorf("read pending task %s: %w", key, err)
	}
	t, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("read pending task %s: %w", key, err)
	}
	return t, nil
}

// List returns the session's pending records sorted by key. Unreadable
// records are skipped; a session without records gives nil.
func (p *Pending) List(sessionID string) ([]PendingTask, error) {
	if err := session.ValidateID(sessionID); err != nil {
		return nil, fmt.Errorf("list pending tasks: %w", err)
	}
	entries, err := os.ReadDir(filepath.Join(p.dir, sessionID))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list pending tasks: %w", err)
	}
	var out []PendingTask
	for _, e := range entries {
		key, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() || session.ValidateToolUseID(key) != nil {
			continue
		}
		t, err := p.Get(sessionID, key)
		if err != nil {
			continue
		}
		out = append(out, PendingTask{Key: key, Task: t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// Remove deletes the record under sessionID and key; a missing record is
// not an error. The session's directory goes when it is left empty.
func (p *Pending) Remove(sessionID, key string) error {
	path, err := p.path(sessionID, key)
	if err != nil {
		return fmt.Errorf("remove pending task: %w", err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove pending task %s: %w", key, err)
	}
	_ = os.Remove(filepath.Dir(path)) // only succeeds when empty
	return nil
}
