package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"
)

// The index lives in <dir>/.index/: a sub-directory, so that Entire 0.4.x,
// which lists <dir>/*.json, never mistakes it for a session.
//
// Format: a header line, then one line per session, sorted by ID:
//
//	entire-session-index 3
//	<id> <ino> <size> <mtime_ns> <ended_unix_ns|0> <worktree key> <c|-> <summary JSON>
//
// <id> is URL-path-escaped (no spaces), <worktree key> is the first 16 hex
// digits of sha256(filepath.Clean(worktree_path)), "c" marks a state file
// that failed to decode. The fields before the JSON let Find check
// freshness and filter by worktree and end time with a few byte
// comparisons; only the lines it returns have their JSON decoded, so a
// query costs what the matching sessions cost, not what the whole history
// costs.
const (
	indexDirName  = ".index"
	indexFileName = "index"
	lockFileName  = "lock"
	indexHeader   = "entire-session-index 3"
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
	// CheckpointCount is State.CheckpointCount.
	CheckpointCount int `json:"checkpoint_count,omitempty"`
	// LastCheckpointID is State.LastCheckpointID.
	LastCheckpointID string `json:"last_checkpoint_id,omitempty"`
	// FirstPrompt is State.FirstPrompt (at most 100 runes plus "...").
	FirstPrompt string `json:"first_prompt,omitempty"`
	// PendingTurnEnds is len(State.TurnEnds).
	PendingTurnEnds int `json:"pending_turn_ends,omitempty"`
	// UpdatedAt is when this summary was recorded.
	UpdatedAt time.Time `json:"updated_at"`
}

// fingerprint identifies the exact bytes of a state file: files are replaced
// by rename (new inode), and in-place writers change size or mtime.
type fingerprint struct {
	Ino     uint64
	Size    int64
	MtimeNS int64
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
	File    fingerprint `json:"-"`
	Corrupt string      `json:"corrupt,omitempty"`
}

// indexLine is one parsed index line; JSON is decoded on demand (entry).
type indexLine struct {
	id      string
	fp      fingerprint
	endedNS int64
	wtKey   string
	corrupt bool
	summary []byte // JSON, a sub-slice of raw
	raw     []byte // the whole line without its newline
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
			CheckpointCount:     st.CheckpointCount,
			LastCheckpointID:    st.LastCheckpointID,
			FirstPrompt:         st.FirstPrompt,
			PendingTurnEnds:     len(st.TurnEnds),
			UpdatedAt:           now.UTC(),
		},
		File: fp,
	}
}

// worktreeKey is the index's worktree field for path.
func worktreeKey(path string) string {
	if path != "" {
		path = filepath.Clean(path)
	}
	sum := sha256.Sum256([]byte(path))
	return hex.EncodeToString(sum[:8])
}

func encodeLine(e *indexEntry) (indexLine, error) {
	js, err := json.Marshal(e)
	if err != nil {
		return indexLine{}, err
	}
	l := indexLine{id: e.SessionID, fp: e.File, wtKey: worktreeKey(e.WorktreePath), corrupt: e.Corrupt != ""}
	if e.EndedAt != nil {
		l.endedNS = e.EndedAt.UnixNano()
	}
	flag := "-"
	if l.corrupt {
		flag = "c"
	}
	head := fmt.Sprintf("%s %d %d %d %d %s %s ", url.PathEscape(l.id), l.fp.Ino, l.fp.Size, l.fp.MtimeNS,
		l.endedNS, l.wtKey, flag)
	l.raw = append([]byte(head), js...)
	l.summary = l.raw[len(head):]
	return l, nil
}

// parseLine parses the fields before the JSON; the JSON is not checked.
func parseLine(line []byte) (indexLine, bool) {
	var f [7][]byte
	rest := line
	for i := range f {
		var ok bool
		if f[i], rest, ok = bytes.Cut(rest, []byte{' '}); !ok {
			return indexLine{}, false
		}
	}
	id, err := url.PathUnescape(string(f[0]))
	if err != nil || ValidateID(id) != nil {
		return indexLine{}, false
	}
	l := indexLine{id: id, wtKey: string(f[5]), corrupt: string(f[6]) == "c", summary: rest, raw: line}
	var e1, e2, e3, e4 error
	l.fp.Ino, e1 = strconv.ParseUint(string(f[1]), 10, 64)
	l.fp.Size, e2 = strconv.ParseInt(string(f[2]), 10, 64)
	l.fp.MtimeNS, e3 = strconv.ParseInt(string(f[3]), 10, 64)
	l.endedNS, e4 = strconv.ParseInt(string(f[4]), 10, 64)
	if e1 != nil || e2 != nil || e3 != nil || e4 != nil {
		return indexLine{}, false
	}
	return l, true
}

// entry decodes the line's JSON; an error means a torn or foreign line.
func (l indexLine) entry() (*indexEntry, error) {
	var e indexEntry
	if err := json.Unmarshal(l.summary, &e); err != nil {
		return nil, err
	}
	if e.SessionID != l.id {
		return nil, errors.New("index line id mismatch")
	}
	e.File = l.fp
	return &e, nil
}

func (s *Store) indexPath() string { return filepath.Join(s.dir, indexDirName, indexFileName) }

// readIndex returns the index lines by session ID; a missing or unreadable
// index is empty, and malformed lines are skipped (Find re-parses their
// state files).
func (s *Store) readIndex() map[string]indexLine {
	lines := make(map[string]indexLine)
	data, err := os.ReadFile(s.indexPath())
	if err != nil {
		return lines
	}
	header, rest, _ := bytes.Cut(data, []byte{'\n'})
	if string(header) != indexHeader {
		return lines
	}
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte{'\n'})
		if l, ok := parseLine(line); ok {
			lines[l.id] = l
		}
	}
	return lines
}

// updateIndex applies changes (nil value = remove) under the index lock and
// replaces the index atomically. Entries are applied only if they still
// describe the file on disk (its fingerprint matches, or for a removal the
// file is gone), so a slow writer never replaces a newer entry with an older
// one, and a concurrent writer's entries are never lost (read-modify-write
// happens under the lock). Unchanged lines are copied as they are.
func (s *Store) updateIndex(changes map[string]*indexEntry) error {
	if len(changes) == 0 {
		return nil
	}
	dir := filepath.Join(s.dir, indexDirName)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("update session index: %w", err)
	}
	unlock, err := lockFile(filepath.Join(dir, lockFileName), s.lockTimeout, s.onLockBreak)
	if err != nil {
		return fmt.Errorf("update session index: %w", err)
	}
	defer unlock()
	lines := s.readIndex()
	changed := false
	for id, e := range changes {
		info, serr := os.Lstat(s.Path(id))
		switch {
		case e == nil && errors.Is(serr, fs.ErrNotExist):
			if _, ok := lines[id]; ok {
				delete(lines, id)
				changed = true
			}
		case e != nil && serr == nil && fingerprintOf(info) == e.File:
			l, err := encodeLine(e)
			if err != nil {
				return fmt.Errorf("update session index: %w", err)
			}
			lines[id] = l
			changed = true
		}
	}
	if !changed {
		return nil
	}
	ids := make([]string, 0, len(lines))
	size := len(indexHeader) + 1
	for id, l := range lines {
		ids = append(ids, id)
		size += len(l.raw) + 1
	}
	sort.Strings(ids)
	buf := make([]byte, 0, size)
	buf = append(buf, indexHeader+"\n"...)
	for _, id := range ids {
		buf = append(append(buf, lines[id].raw...), '\n')
	}
	// No fsync: the index is a cache. After a crash, torn lines fail to
	// parse and their sessions are re-parsed from the state files.
	if _, err := writeAtomic(s.indexPath(), buf, 0o600, false); err != nil {
		return fmt.Errorf("update session index: %w", err)
	}
	return nil
}

// HoldsShadowBranch reports whether the session still needs the shadow
// branch of its base commit: it has steps on it, touched files that a
// next step will record, turn ends still to be written there, or is
// active. This is the one rule for whether a shadow branch is in use:
// a branch that no session holds may be deleted (a reset, a base that
// moved, `entire clean`).
func (s Summary) HoldsShadowBranch() bool {
	return s.BaseCommit != "" &&
		(s.CheckpointCount > 0 || s.FilesTouched > 0 || s.PendingTurnEnds > 0 || s.Phase == PhaseActive)
}

// HoldsShadowBranch is Summary.HoldsShadowBranch of st.
func (st *State) HoldsShadowBranch() bool {
	return Summary{BaseCommit: st.BaseCommit, CheckpointCount: st.CheckpointCount, FilesTouched: len(st.FilesTouched),
		PendingTurnEnds: len(st.TurnEnds), Phase: NormalizePhase(string(st.Phase))}.HoldsShadowBranch()
}
