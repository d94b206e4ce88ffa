package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// The index lives in <dir>/.index/: a sub-directory, so that Entire 0.4.x,
// which lists <dir>/*.json, never mistakes it for a session.
const (
	indexDirName  = ".index"
	indexFileName = "index.json"
	lockFileName  = "lock"
	indexVersion  = 1
)

// Summary is the part of a session's state that hooks need to pick the
// sessions they act on, as kept in the index. Load the full State for
// anything else.
type Summary struct {
	SessionID           string     `json:"session_id"`
	WorktreePath        string     `json:"worktree_path,omitempty"`
	WorktreeID          string     `json:"worktree_id,omitempty"`
	Phase               Phase      `json:"phase"`
	BaseCommit          string     `json:"base_commit,omitempty"`
	AgentType           string     `json:"agent_type,omitempty"`
	StartedAt           time.Time  `json:"started_at"`
	EndedAt             *time.Time `json:"ended_at,omitempty"`
	LastInteractionTime *time.Time `json:"last_interaction_time,omitempty"`
	// FilesTouched is len(State.FilesTouched).
	FilesTouched int `json:"files_touched,omitempty"`
	// LastCheckpointID is State.LastCheckpointID.
	LastCheckpointID string `json:"last_checkpoint_id,omitempty"`
	// UpdatedAt is when this summary was recorded.
	UpdatedAt time.Time `json:"updated_at"`
}

// fingerprint identifies the exact bytes of a state file: files are replaced
// by rename (new inode), and in-place writers change size or mtime.
type fingerprint struct {
	Ino     uint64 `json:"ino,omitempty"`
	Size    int64  `json:"size"`
	MtimeNS int64  `json:"mtime_ns"`
}

func fingerprintOf(info fs.FileInfo) fingerprint {
	if info == nil {
		return fingerprint{}
	}
	return fingerprint{Ino: inode(info), Size: info.Size(), MtimeNS: info.ModTime().UnixNano()}
}

// indexEntry is a Summary plus the fingerprint of the file it was taken
// from. Corrupt records a file that failed to decode, so it is not parsed
// again until it changes.
type indexEntry struct {
	Summary
	File    fingerprint `json:"file"`
	Corrupt string      `json:"corrupt,omitempty"`
}

type indexDoc struct {
	Version  int                    `json:"version"`
	Sessions map[string]*indexEntry `json:"sessions"`
}

func entryFor(st *State, fp fingerprint, now time.Time) *indexEntry {
	return &indexEntry{
		Summary: Summary{
			SessionID:           st.SessionID,
			WorktreePath:        st.WorktreePath,
			WorktreeID:          st.WorktreeID,
			Phase:               NormalizePhase(string(st.Phase)),
			BaseCommit:          st.BaseCommit,
			AgentType:           st.AgentType,
			StartedAt:           st.StartedAt,
			EndedAt:             st.EndedAt,
			LastInteractionTime: st.LastInteractionTime,
			FilesTouched:        len(st.FilesTouched),
			LastCheckpointID:    st.LastCheckpointID,
			UpdatedAt:           now.UTC(),
		},
		File: fp,
	}
}

func (s *Store) indexPath() string { return filepath.Join(s.dir, indexDirName, indexFileName) }

// readIndex returns the index; a missing or unreadable index is empty.
func (s *Store) readIndex() *indexDoc {
	doc := &indexDoc{}
	if data, err := os.ReadFile(s.indexPath()); err == nil {
		if json.Unmarshal(data, doc) != nil || doc.Version != indexVersion {
			doc = &indexDoc{}
		}
	}
	if doc.Sessions == nil {
		doc.Sessions = make(map[string]*indexEntry)
	}
	return doc
}

// updateIndex applies changes (nil value = remove) under the index lock and
// replaces the index atomically. Entries are applied only if they still
// describe the file on disk (its fingerprint matches, or for a removal the
// file is gone), so a slow writer never replaces a newer entry with an older
// one, and a concurrent writer's entries are never lost (read-modify-write
// happens under the lock).
func (s *Store) updateIndex(changes map[string]*indexEntry) error {
	if len(changes) == 0 {
		return nil
	}
	dir := filepath.Join(s.dir, indexDirName)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("update session index: %w", err)
	}
	unlock, err := lockFile(filepath.Join(dir, lockFileName), s.lockTimeout)
	if err != nil {
		return fmt.Errorf("update session index: %w", err)
	}
	defer unlock()
	doc := s.readIndex()
	changed := false
	for id, e := range changes {
		info, serr := os.Lstat(s.Path(id))
		switch {
		case e == nil && errors.Is(serr, fs.ErrNotExist):
			if _, ok := doc.Sessions[id]; ok {
				delete(doc.Sessions, id)
				changed = true
			}
		case e != nil && serr == nil && fingerprintOf(info) == e.File:
			doc.Sessions[id] = e
			changed = true
		}
	}
	if !changed {
		return nil
	}
	doc.Version = indexVersion
	data, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("update session index: %w", err)
	}
	// No fsync: the index is a cache. After a crash a torn or empty index
	// fails to parse and is rebuilt from the state files.
	if _, err := writeAtomic(s.indexPath(), append(data, '\n'), 0o600, false); err != nil {
		return fmt.Errorf("update session index: %w", err)
	}
	return nil
}

// Query selects sessions for Find.
type Query struct {
	// WorktreePath keeps only sessions of this work tree root (compared
	// after filepath.Clean). Empty keeps all.
	WorktreePath string
	// EndedSince drops sessions that ended before it. The zero value keeps
	// every ended session.
	EndedSince time.Time
	// ExcludeEnded drops every session with EndedAt set.
	ExcludeEnded bool
}

// Find returns the summaries of the sessions matching q, sorted by start
// time then ID, without parsing state files that have not changed since
// they were indexed. Corrupt state files are skipped and reported in corrupt.
// err is non-nil only when the directory cannot be listed.
//
// Cost and guarantee: one directory read, one lstat per state file and one
// read of the (small) index; a state file is parsed only if its fingerprint
// (inode, size, mtime) differs from the one indexed, which happens only after
// a write that bypassed this package (Entire 0.4.x, a crash between the
// state rename and the index update, manual edits). Such entries, and
// entries of files that no longer exist, are repaired in the index
// (best-effort, under the lock). The result therefore always reflects the
// state files on disk at the time of the directory read, never a stale
// index.
func (s *Store) Find(q Query) (sums []Summary, corrupt []error, err error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list sessions: %w", err)
	}
	doc := s.readIndex()
	repairs := make(map[string]*indexEntry)
	seen := make(map[string]bool, len(entries))
	for _, de := range entries {
		id, ok := stateFileID(de.Name())
		if !ok || de.IsDir() {
			continue
		}
		info, ierr := de.Info()
		if ierr != nil {
			continue // removed since the directory read
		}
		seen[id] = true
		e := doc.Sessions[id]
		if e == nil || e.File != fingerprintOf(info) {
			e = s.parseEntry(id)
			if e == nil {
				continue
			}
			repairs[id] = e
		}
		if e.Corrupt != "" {
			corrupt = append(corrupt, fmt.Errorf("load session %s: %s", id, e.Corrupt))
			continue
		}
		if q.matches(&e.Summary) {
			sums = append(sums, e.Summary)
		}
	}
	for id := range doc.Sessions {
		if !seen[id] {
			repairs[id] = nil
		}
	}
	s.reportIndexErr(s.updateIndex(repairs))
	sort.Slice(sums, func(i, j int) bool {
		if !sums[i].StartedAt.Equal(sums[j].StartedAt) {
			return sums[i].StartedAt.Before(sums[j].StartedAt)
		}
		return sums[i].SessionID < sums[j].SessionID
	})
	return sums, corrupt, nil
}

// parseEntry reads and decodes the state file of id into an index entry. It
// returns nil if the file vanished or changed during the read.
func (s *Store) parseEntry(id string) *indexEntry {
	data, info, err := readWithInfo(s.Path(id))
	if err != nil || info == nil {
		return nil
	}
	st, err := Decode(data)
	if err != nil {
		return &indexEntry{Summary: Summary{SessionID: id, UpdatedAt: s.now().UTC()},
			File: fingerprintOf(info), Corrupt: err.Error()}
	}
	// The file name is authoritative for the ID.
	st.SessionID = id
	return entryFor(st, fingerprintOf(info), s.now())
}

func (q Query) matches(sum *Summary) bool {
	if q.WorktreePath != "" && filepath.Clean(sum.WorktreePath) != filepath.Clean(q.WorktreePath) {
		return false
	}
	if sum.EndedAt != nil {
		if q.ExcludeEnded || (!q.EndedSince.IsZero() && sum.EndedAt.Before(q.EndedSince)) {
			return false
		}
	}
	return true
}
