package session

import (
	"fmt"
	"testing"
	"time"
)

// benchStore fills a store with n sessions of a realistic size (a state
// with 2000 untracked paths is ~60 KB), only one of them in worktree /hot.
func benchStore(b *testing.B, n int) *Store {
	b.Helper()
	s := NewStore(Options{GitCommonDir: b.TempDir()})
	untracked := make([]string, 2000)
	for i := range untracked {
		untracked[i] = fmt.Sprintf("node_modules/pkg%04d/index.js", i)
	}
	ended := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		st := testState(fmt.Sprintf("session-%05d", i), "/old", PhaseEnded)
		st.EndedAt = &ended
		st.UntrackedFilesAtStart = untracked
		if i == n-1 {
			st.WorktreePath, st.Phase, st.EndedAt = "/hot", PhaseActive, nil
		}
		if err := s.Save(st); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

func BenchmarkFindWorktree1000(b *testing.B) {
	s := benchStore(b, 1000)
	b.ResetTimer()
	for b.Loop() {
		sums, _, err := s.Find(Query{WorktreePath: "/hot", ExcludeEnded: true})
		if err != nil || len(sums) != 1 {
			b.Fatal(err, len(sums))
		}
	}
}

func BenchmarkListAll1000(b *testing.B) {
	s := benchStore(b, 1000)
	b.ResetTimer()
	for b.Loop() {
		states, _, err := s.List()
		if err != nil || len(states) != 1000 {
			b.Fatal(err)
		}
	}
}

func BenchmarkSave(b *testing.B) {
	s := benchStore(b, 100)
	st := testState("session-00001", "/w", PhaseActive)
	b.ResetTimer()
	for b.Loop() {
		if err := s.Save(st); err != nil {
			b.Fatal(err)
		}
	}
}
