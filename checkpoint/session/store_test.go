package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

func newTestStore(t testing.TB) *Store {
	t.Helper()
	return NewStore(Options{GitCommonDir: t.TempDir(), OnIndexError: func(err error) { t.Errorf("index error: %v", err) }})
}

func testState(id, worktree string, phase Phase) *State {
	return &State{SessionID: id, BaseCommit: "abc1234", WorktreePath: worktree, Phase: phase,
		StartedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), AgentType: "Claude Code"}
}

func TestStoreSaveLoadDelete(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	st := testState("sess-1", "/w", PhaseActive)
	if err := s.Save(st); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load("sess-1")
	if err != nil {
		t.Fatal(err)
	}
	if got.SessionID != "sess-1" || got.Phase != PhaseActive || got.AttributionBaseCommit != "abc1234" {
		t.Fatalf("Load = %+v", got)
	}
	info, err := os.Stat(s.Path("sess-1"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("state mode = %v, want 0600", info.Mode().Perm())
	}
	dinfo, _ := os.Stat(s.Dir())
	if dinfo.Mode().Perm() != 0o750 {
		t.Errorf("dir mode = %v, want 0750", dinfo.Mode().Perm())
	}
	if err := s.Delete("sess-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("sess-1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Load after delete: %v, want ErrNotFound", err)
	}
	if err := s.Delete("sess-1"); err != nil {
		t.Fatalf("second Delete: %v", err)
	}
	entries, _ := os.ReadDir(s.Dir())
	for _, e := range entries {
		if e.Name() != indexDirName {
			t.Errorf("unexpected file left: %s", e.Name())
		}
	}
}

func TestStoreRejectsInvalidIDs(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	for _, id := range []string{"", "../x", "a/b", `a\b`, ".."} {
		if err := s.Save(&State{SessionID: id}); !errors.Is(err, ErrInvalidID) {
			t.Errorf("Save(%q) = %v, want ErrInvalidID", id, err)
		}
		if _, err := s.Load(id); !errors.Is(err, ErrInvalidID) {
			t.Errorf("Load(%q) = %v, want ErrInvalidID", id, err)
		}
		if err := s.Delete(id); !errors.Is(err, ErrInvalidID) {
			t.Errorf("Delete(%q) = %v, want ErrInvalidID", id, err)
		}
	}
}

func TestListSkipsCorrupt(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	for _, id := range []string{"b", "a"} {
		if err := s.Save(testState(id, "/w", PhaseIdle)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(s.Path("broken"), []byte("{nope"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Temp files and foreign files are ignored.
	_ = os.WriteFile(filepath.Join(s.Dir(), "c.json.tmp123"), []byte("{"), 0o600)
	_ = os.WriteFile(filepath.Join(s.Dir(), "notes.txt"), []byte("x"), 0o600)
	states, corrupt, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 2 || states[0].SessionID != "a" || states[1].SessionID != "b" {
		t.Fatalf("List states = %v", ids(states))
	}
	if len(corrupt) != 1 {
		t.Fatalf("corrupt = %v, want one error", corrupt)
	}
	sums, corrupt, err := s.Find(Query{})
	if err != nil || len(sums) != 2 || len(corrupt) != 1 {
		t.Fatalf("Find = %v %v %v", sums, corrupt, err)
	}
}

func TestListMissingDir(t *testing.T) {
	t.Parallel()
	s := NewStore(Options{GitCommonDir: filepath.Join(t.TempDir(), "nope")})
	states, corrupt, err := s.List()
	if err != nil || states != nil || corrupt != nil {
		t.Fatalf("List on missing dir = %v %v %v", states, corrupt, err)
	}
	sums, _, err := s.Find(Query{})
	if err != nil || sums != nil {
		t.Fatalf("Find on missing dir = %v %v", sums, err)
	}
}

func ids(states []*State) []string {
	var out []string
	for _, st := range states {
		out = append(out, st.SessionID)
	}
	return out
}

func sumIDs(sums []Summary) []string {
	var out []string
	for _, s := range sums {
		out = append(out, s.SessionID)
	}
	sort.Strings(out)
	return out
}

func TestFindQuery(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	longAgo := now.Add(-30 * 24 * time.Hour)
	recent := now.Add(-time.Hour)
	mk := func(id, wt string, ended *time.Time) {
		st := testState(id, wt, PhaseIdle)
		st.EndedAt = ended
		if ended != nil {
			st.Phase = PhaseEnded
		}
		if err := s.Save(st); err != nil {
			t.Fatal(err)
		}
	}
	mk("live-w1", "/w1", nil)
	mk("old-w1", "/w1", &longAgo)
	mk("recent-w1", "/w1/", &recent)
	mk("live-w2", "/w2", nil)
	tests := []struct {
		name string
		q    Query
		want []string
	}{
		{"all", Query{}, []string{"live-w1", "live-w2", "old-w1", "recent-w1"}},
		{"worktree", Query{WorktreePath: "/w1"}, []string{"live-w1", "old-w1", "recent-w1"}},
		{"not long ended", Query{WorktreePath: "/w1", EndedSince: now.Add(-24 * time.Hour)}, []string{"live-w1", "recent-w1"}},
		{"exclude ended", Query{ExcludeEnded: true}, []string{"live-w1", "live-w2"}},
		{"other", Query{WorktreePath: "/w3"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sums, corrupt, err := s.Find(tt.q)
			if err != nil || len(corrupt) != 0 {
				t.Fatal(err, corrupt)
			}
			if got := sumIDs(sums); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("Find(%+v) = %v, want %v", tt.q, got, tt.want)
			}
		})
	}
}

// TestFindSelfHeals covers writes that bypass the index: a missing index, a
// state file rewritten by a foreign writer, files added and removed behind
// the store's back, and a corrupt index.
func TestFindSelfHeals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(t *testing.T, s *Store)
		want   map[string]Phase
	}{
		{"index deleted", func(t *testing.T, s *Store) {
			must(t, os.RemoveAll(filepath.Join(s.Dir(), indexDirName)))
		}, map[string]Phase{"a": PhaseActive, "b": PhaseIdle}},
		{"index corrupt", func(t *testing.T, s *Store) {
			must(t, os.WriteFile(s.indexPath(), []byte("garbage"), 0o600))
		}, map[string]Phase{"a": PhaseActive, "b": PhaseIdle}},
		{"foreign rewrite in place", func(t *testing.T, s *Store) {
			st := testState("a", "/w", PhaseEnded)
			data, _ := Encode(st)
			must(t, os.WriteFile(s.Path("a"), data, 0o600)) // same inode, new size
		}, map[string]Phase{"a": PhaseEnded, "b": PhaseIdle}},
		{"foreign new file", func(t *testing.T, s *Store) {
			must(t, os.WriteFile(s.Path("c"), []byte(`{"session_id":"c","worktree_path":"/w","phase":"active_committed"}`), 0o600))
		}, map[string]Phase{"a": PhaseActive, "b": PhaseIdle, "c": PhaseActive}},
		{"foreign delete", func(t *testing.T, s *Store) {
			must(t, os.Remove(s.Path("b")))
		}, map[string]Phase{"a": PhaseActive}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newTestStore(t)
			must(t, s.Save(testState("a", "/w", PhaseActive)))
			must(t, s.Save(testState("b", "/w", PhaseIdle)))
			tt.mutate(t, s)
			for round := range 2 { // second round must be served by the repaired index
				sums, corrupt, err := s.Find(Query{WorktreePath: "/w"})
				if err != nil || len(corrupt) != 0 {
					t.Fatal(err, corrupt)
				}
				got := map[string]Phase{}
				for _, sum := range sums {
					got[sum.SessionID] = sum.Phase
				}
				if fmt.Sprint(got) != fmt.Sprint(tt.want) {
					t.Fatalf("round %d: Find = %v, want %v", round, got, tt.want)
				}
			}
			doc := s.readIndex()
			if len(doc) != len(tt.want) {
				t.Fatalf("index not repaired: %d entries, want %d", len(doc), len(tt.want))
			}
			for id := range tt.want {
				info, err := os.Lstat(s.Path(id))
				must(t, err)
				if l, ok := doc[id]; !ok || l.fp != fingerprintOf(info) {
					t.Fatalf("index entry %s stale after repair", id)
				}
			}
		})
	}
}

// TestFindDoesNotParseIndexedFiles proves the fast path: a state file whose
// fingerprint matches its index entry is not read (its content is replaced
// by garbage while keeping size and mtime, and Find still returns the
// indexed summary).
func TestFindDoesNotParseIndexedFiles(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	must(t, s.Save(testState("a", "/w", PhaseActive)))
	info, err := os.Stat(s.Path("a"))
	must(t, err)
	f, err := os.OpenFile(s.Path("a"), os.O_WRONLY, 0)
	must(t, err)
	garbage := make([]byte, info.Size())
	for i := range garbage {
		garbage[i] = 'x'
	}
	_, err = f.WriteAt(garbage, 0)
	must(t, err)
	must(t, f.Close())
	must(t, os.Chtimes(s.Path("a"), info.ModTime(), info.ModTime()))
	sums, corrupt, err := s.Find(Query{})
	if err != nil || len(corrupt) != 0 || len(sums) != 1 || sums[0].Phase != PhaseActive {
		t.Fatalf("Find = %v %v %v; want the indexed summary without parsing", sums, corrupt, err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
