package session

import (
	"bytes"
	"os"
	"reflect"
	"testing"
	"time"
)

func TestIndexLineRoundTrip(t *testing.T) {
	t.Parallel()
	ended := time.Date(2026, 5, 6, 7, 8, 9, 10, time.UTC)
	tests := []struct {
		name string
		e    *indexEntry
	}{
		{"plain", entryFor(testState("8f3c2e1a-7b6d", "/repo", PhaseActive), fingerprint{1, 2, 3}, ended)},
		{"odd id", entryFor(testState("a b%20c ü", "/path with space", PhaseIdle), fingerprint{4, 5, 6}, ended)},
		{"ended", func() *indexEntry {
			st := testState("e", "", PhaseEnded)
			st.EndedAt = &ended
			return entryFor(st, fingerprint{0, 7, 8}, ended)
		}()},
		{"corrupt", &indexEntry{Summary: Summary{SessionID: "bad"}, File: fingerprint{9, 9, 9}, Corrupt: "parse: x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, err := encodeLine(tt.e)
			must(t, err)
			if bytes.ContainsRune(l.raw, '\n') {
				t.Fatalf("line contains a newline: %q", l.raw)
			}
			p, ok := parseLine(l.raw)
			if !ok {
				t.Fatalf("parseLine(%q) failed", l.raw)
			}
			if p.id != tt.e.SessionID || p.fp != tt.e.File || p.corrupt != (tt.e.Corrupt != "") ||
				p.wtKey != worktreeKey(tt.e.WorktreePath) {
				t.Fatalf("parsed %+v from %q", p, l.raw)
			}
			got, err := p.entry()
			must(t, err)
			if !reflect.DeepEqual(got, tt.e) {
				t.Fatalf("entry = %+v, want %+v", got, tt.e)
			}
		})
	}
}

func TestParseLineRejects(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"", "a 1 2 3 4 k -", "a x 2 3 4 k - {}", "%zz 1 2 3 4 k - {}", "..%2F 1 2 3 4 k - {}", "a 1 2 3 4.5 k - {}"} {
		if _, ok := parseLine([]byte(line)); ok {
			t.Errorf("parseLine(%q) accepted", line)
		}
	}
}

// TestFindOnlyDecodesMatchingLines replaces the JSON of a non-matching
// line with garbage: Find for another worktree must not notice.
func TestFindOnlyDecodesMatchingLines(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	must(t, s.Save(testState("mine", "/mine", PhaseActive)))
	must(t, s.Save(testState("other", "/other", PhaseActive)))
	data, err := os.ReadFile(s.indexPath())
	must(t, err)
	lines := bytes.Split(data, []byte("\n"))
	for i, l := range lines {
		if bytes.HasPrefix(l, []byte("other ")) {
			p, _ := parseLine(l)
			lines[i] = append(l[:len(l)-len(p.summary)], "not json"...)
		}
	}
	must(t, os.WriteFile(s.indexPath(), bytes.Join(lines, []byte("\n")), 0o600))
	sums, _, err := s.Find(Query{WorktreePath: "/mine"})
	must(t, err)
	if len(sums) != 1 || sums[0].SessionID != "mine" {
		t.Fatalf("Find = %+v", sums)
	}
	if _, err := s.readIndex()["other"].entry(); err == nil {
		t.Fatal("non-matching line was decoded and repaired; want it untouched")
	}
	// A query that does match re-parses the torn line's state file.
	sums, _, err = s.Find(Query{WorktreePath: "/other"})
	must(t, err)
	if len(sums) != 1 || sums[0].SessionID != "other" {
		t.Fatalf("Find other = %+v", sums)
	}
	if _, err := s.readIndex()["other"].entry(); err != nil {
		t.Fatalf("torn line not repaired: %v", err)
	}
}

func TestFindTornIndex(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	for _, id := range []string{"a", "b", "c"} {
		must(t, s.Save(testState(id, "/w", PhaseIdle)))
	}
	data, err := os.ReadFile(s.indexPath())
	must(t, err)
	must(t, os.WriteFile(s.indexPath(), data[:len(data)-40], 0o600)) // cut inside the last line
	sums, corrupt, err := s.Find(Query{WorktreePath: "/w"})
	must(t, err)
	if len(sums) != 3 || len(corrupt) != 0 {
		t.Fatalf("Find on torn index = %v %v", sumIDs(sums), corrupt)
	}
	checkIndexComplete(t, s, []string{"a", "b", "c"})
}

func FuzzReadIndex(f *testing.F) {
	f.Add([]byte(indexHeader + "\na 1 2 3 0 k - {\"session_id\":\"a\"}\n"))
	f.Add([]byte(indexHeader + "\n%20 1 2 3 0 k c {}\nb 1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewStore(Options{GitCommonDir: t.TempDir()})
		must(t, os.MkdirAll(s.Dir()+"/"+indexDirName, 0o750))
		must(t, os.WriteFile(s.indexPath(), data, 0o600))
		for _, l := range s.readIndex() {
			_, _ = l.entry()
		}
	})
}
