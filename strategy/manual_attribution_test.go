package strategy

import (
	"reflect"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
)

// The line attribution a condensation records (SPEC 5.2.10): the agent's
// lines are what its snapshots hold minus the user's edits the turn starts
// counted and the user's changes after the last snapshot; the lines added
// to files the agent never touched are the user's.
func TestManualCommitAttribution(t *testing.T) {
	t.Parallel()
	five := "1\n2\n3\n4\n5\n"
	for _, tc := range []struct {
		name string
		// run plays the session and the user and returns the paths
		// committed.
		run  func(r *mcRepo) []string
		want checkpoint.Attribution
		// prompt is the attribution the turn starts recorded (nil: none
		// with user lines).
		prompt []session.PromptAttribution
	}{
		{"the agent's lines only", func(r *mcRepo) []string {
			r.turn("s1", "five lines", map[string]string{"a.txt": five}, 1, 1)
			return []string{"a.txt"}
		}, checkpoint.Attribution{AgentLines: 5, TotalCommitted: 5, AgentPercentage: 100}, nil},
		{"the user's own file at the commit", func(r *mcRepo) []string {
			r.turn("s1", "five lines", map[string]string{"a.txt": five}, 1, 1)
			r.write(map[string]string{"u.txt": "x\ny\nz\n"})
			return []string{"a.txt", "u.txt"}
		}, checkpoint.Attribution{AgentLines: 5, HumanAdded: 3, TotalCommitted: 8, AgentPercentage: 62.5}, nil},
		{"the user rewrites two of the agent's lines", func(r *mcRepo) []string {
			// A tracked file: a new one the user changed would not be
			// the agent's (see TestManualCommitLinksByContent).
			r.turn("s1", "five lines", map[string]string{"README.md": "hello\n" + five}, 1, 1)
			r.write(map[string]string{"README.md": "hello\n1\nB\n3\nD\n5\n"})
			return []string{"README.md"}
		}, checkpoint.Attribution{AgentLines: 3, HumanModified: 2, TotalCommitted: 5, AgentPercentage: 60}, nil},
		{"the user deletes agent lines", func(r *mcRepo) []string {
			r.turn("s1", "five lines", map[string]string{"README.md": "hello\n" + five}, 1, 1)
			r.write(map[string]string{"README.md": "hello\n1\n2\n3\n"})
			return []string{"README.md"}
		}, checkpoint.Attribution{AgentLines: 3, HumanRemoved: 2, TotalCommitted: 3, AgentPercentage: 100}, nil},
		{"the user adds lines between turns", func(r *mcRepo) []string {
			r.turn("s1", "five lines", map[string]string{"a.txt": five}, 1, 1)
			r.write(map[string]string{"a.txt": five + "u1\nu2\n"})
			r.turn("s1", "one more file", map[string]string{"b.txt": "b\n"}, 1, 1)
			return []string{"a.txt", "b.txt"}
		}, checkpoint.Attribution{AgentLines: 6, HumanAdded: 2, TotalCommitted: 8, AgentPercentage: 75},
			[]session.PromptAttribution{{CheckpointNumber: 2, UserLinesAdded: 2, AgentLinesAdded: 5, UserAddedPerFile: map[string]int{"a.txt": 2}}}},
		{"the user edits another file between turns", func(r *mcRepo) []string {
			r.turn("s1", "five lines", map[string]string{"a.txt": five}, 1, 1)
			r.write(map[string]string{"u.txt": "u\n"})
			r.turn("s1", "one more file", map[string]string{"b.txt": "b\n"}, 1, 1)
			return []string{"a.txt", "b.txt", "u.txt"}
		}, checkpoint.Attribution{AgentLines: 6, HumanAdded: 1, TotalCommitted: 7, AgentPercentage: float64(6) / 7 * 100},
			[]session.PromptAttribution{{CheckpointNumber: 2, UserLinesAdded: 1, UserAddedPerFile: map[string]int{"u.txt": 1}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newMCRepo(t)
			paths := tc.run(r)
			var prompt []session.PromptAttribution
			for _, pa := range r.state("s1").PromptAttributions {
				if pa.UserLinesAdded != 0 || pa.UserLinesRemoved != 0 {
					if len(pa.UserBlobs) == 0 || pa.MeasuredAt.IsZero() {
						t.Errorf("turn start kept no version of the edits: %+v", pa)
					}
					pa.UserBlobs, pa.MeasuredAt, pa.StepFiles, pa.ScopePrompts = nil, time.Time{}, nil, 0 // checked by the line records
					prompt = append(prompt, pa)
				}
			}
			if !reflect.DeepEqual(prompt, tc.prompt) {
				t.Errorf("turn starts counted %+v, want %+v", prompt, tc.prompt)
			}
			id := r.commit("commit", paths...)
			if id == "" {
				t.Fatal("commit not linked")
			}
			got := r.slot(id, "s1").Metadata.InitialAttribution
			if got == nil {
				t.Fatal("no attribution recorded")
			}
			if got.CalculatedAt.IsZero() {
				t.Error("no calculation time")
			}
			a := *got
			a.CalculatedAt = tc.want.CalculatedAt
			if a != tc.want {
				t.Errorf("attribution %+v, want %+v", a, tc.want)
			}
		})
	}
}
