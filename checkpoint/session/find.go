package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

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
// they were indexed. Corrupt state files are skipped and reported in
// corrupt, whatever q says. err is non-nil only when the directory cannot
// be listed.
//
// Cost and guarantee: one directory read, one lstat per state file, one
// read of the index file, and a JSON decode of only the index lines that
// match q. A state file is parsed only if its fingerprint (inode, size,
// mtime) differs from the one indexed, which happens only after a write that
// bypassed this package (Entire 0.4.x, a crash between the state rename and
// the index update, manual edits). Such entries, and entries of files that
// no longer exist, are repaired in the index (best-effort, under the lock).
// The result therefore always reflects the state files on disk at the time
// of the directory read, never a stale index.
func (s *Store) Find(q Query) (sums []Summary, corrupt []error, err error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list sessions: %w", err)
	}
	lines := s.readIndex()
	wantKey := ""
	if q.WorktreePath != "" {
		wantKey = worktreeKey(q.WorktreePath)
	}
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
		var e *indexEntry
		if l, ok := lines[id]; ok && l.fp == fingerprintOf(info) {
			if !l.corrupt && !q.prefilter(l, wantKey) {
				continue
			}
			e, _ = l.entry() // nil for a torn line: re-parse below
		}
		if e == nil {
			if e = s.parseEntry(id); e == nil {
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
	for id := range lines {
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

// prefilter decides from the line's plain fields whether the session can
// match q; matches makes the exact decision on the decoded summary.
func (q Query) prefilter(l indexLine, wantKey string) bool {
	if wantKey != "" && l.wtKey != wantKey {
		return false
	}
	if l.endedNS != 0 {
		if q.ExcludeEnded || (!q.EndedSince.IsZero() && l.endedNS < q.EndedSince.UnixNano()) {
			return false
		}
	}
	return true
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
