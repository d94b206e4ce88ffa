package strategy

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

func TestComputeAttribution(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files []fileLines
		acc   attributionCounts
		want  checkpoint.Attribution
		pct   string
	}{
		{"nothing committed", nil, attributionCounts{}, checkpoint.Attribution{}, "0.0"},
		{"agent only", []fileLines{{Agent: true, Work: 7}}, attributionCounts{},
			checkpoint.Attribution{AgentLines: 7, TotalCommitted: 7, AgentPercentage: 100}, "100.0"},
		// 1 agent line, 4 lines added at commit time to a file the agent
		// never touched.
		{"untouched file at commit", []fileLines{{Agent: true, Work: 1}, {HeadAdded: 4}}, attributionCounts{},
			checkpoint.Attribution{AgentLines: 1, HumanAdded: 4, TotalCommitted: 5, AgentPercentage: 20}, "20.0"},
		// The same 4 lines, counted at a turn start: not twice.
		{"untouched file between turns", []fileLines{{Agent: true, Work: 1}, {HeadAdded: 4, UserAdded: 4}}, attributionCounts{UserAdded: 4},
			checkpoint.Attribution{AgentLines: 1, HumanAdded: 4, TotalCommitted: 5, AgentPercentage: 20}, "20.0"},
		// The snapshot holds 18 lines, 5 of them the user's (counted at
		// the second turn's start).
		{"user lines in an agent file", []fileLines{{Agent: true, Work: 18, UserAdded: 5}}, attributionCounts{UserAdded: 5},
			checkpoint.Attribution{AgentLines: 13, HumanAdded: 5, TotalCommitted: 18, AgentPercentage: float64(13) / float64(18) * 100}, "72.2"},
		// The user rewrites 2 of the agent's 10 lines after the snapshot.
		{"post-snapshot modification", []fileLines{{Agent: true, Work: 10, PostAdded: 2, PostRemoved: 2}}, attributionCounts{},
			checkpoint.Attribution{AgentLines: 8, HumanModified: 2, TotalCommitted: 10, AgentPercentage: 80}, "80.0"},
		// The user deletes 3 of the agent's 10 lines and adds 1: 7 agent
		// lines of 8.
		{"post-snapshot removal", []fileLines{{Agent: true, Work: 10, PostAdded: 1, PostRemoved: 3}}, attributionCounts{},
			checkpoint.Attribution{AgentLines: 7, HumanModified: 1, HumanRemoved: 2, TotalCommitted: 8, AgentPercentage: 87.5}, "87.5"},
		// The user added 4 lines between turns and rewrites 2 of their own
		// after the snapshot: the agent's 6 lines stay the agent's.
		{"self modification", []fileLines{{Agent: true, Work: 10, UserAdded: 4, PostAdded: 2, PostRemoved: 2}}, attributionCounts{UserAdded: 4},
			checkpoint.Attribution{AgentLines: 6, HumanAdded: 4, HumanModified: 2, TotalCommitted: 10, AgentPercentage: 60}, "60.0"},
		// Deleting everything: the fallback keeps the agent's additions.
		{"removals exceed additions", []fileLines{{Agent: true, Work: 2, PostRemoved: 5}}, attributionCounts{},
			checkpoint.Attribution{HumanRemoved: 5, TotalCommitted: 2}, "0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := computeAttribution(tt.files, tt.acc)
			if got != tt.want {
				t.Errorf("computeAttribution = %+v, want %+v", got, tt.want)
			}
			if s := fmt.Sprintf("%.1f", got.AgentPercentage); s != tt.pct {
				t.Errorf("percentage shows %s, want %s", s, tt.pct)
			}
		})
	}
}

func TestRecordPromptAttribution(t *testing.T) {
	t.Parallel()
	st := &session.State{CheckpointCount: 3}
	recordPromptAttribution(st) // nothing pending: nothing recorded
	if st.PromptAttributions != nil {
		t.Fatalf("recorded %v", st.PromptAttributions)
	}
	st.PendingPromptAttribution = &session.PromptAttribution{CheckpointNumber: 2, UserLinesAdded: 5, UserAddedPerFile: map[string]int{"a.txt": 5}}
	recordPromptAttribution(st)
	if len(st.PromptAttributions) != 1 || st.PromptAttributions[0].CheckpointNumber != 3 || st.PromptAttributions[0].UserLinesAdded != 5 || st.PendingPromptAttribution != nil {
		t.Errorf("state after recording: %+v pending %v", st.PromptAttributions, st.PendingPromptAttribution)
	}
}

func TestLineDiff(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b           string
		added, removed int
	}{
		{"", "", 0, 0},
		{"", "one\ntwo\n", 2, 0},
		{"one\ntwo\n", "", 0, 2},
		{"one\ntwo\nthree\n", "one\n2\nthree\nfour", 2, 1},
		{"same\n", "same\n", 0, 0},
	} {
		if a, r := lineDiff(tt.a, tt.b); a != tt.added || r != tt.removed {
			t.Errorf("lineDiff(%q, %q) = +%d -%d, want +%d -%d", tt.a, tt.b, a, r, tt.added, tt.removed)
		}
	}
}

// A file git status saw as regular but that is a symbolic link by the
// time it is counted is not read through (it could point out of the
// repository).
func TestDiskTextDoesNotFollowLink(t *testing.T) {
	t.Parallel()
	env, _ := testEnv(t)
	m := NewManualCommit(env)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	regular := checkpoint.Entry{Mode: filemode.Regular}
	if err := os.WriteFile(filepath.Join(env.Repo.Root, "plain.txt"), []byte("a\nb\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok := m.diskText("plain.txt", regular); !ok || got != "a\nb\n" {
		t.Errorf("regular file: %q %v", got, ok)
	}
	if err := os.Symlink(outside, filepath.Join(env.Repo.Root, "swapped.txt")); err != nil {
		t.Fatal(err)
	}
	if got, ok := m.diskText("swapped.txt", regular); ok || got != "" {
		t.Errorf("link swapped in for a regular file read through: %q %v", got, ok)
	}
}
