package session

import "testing"

// One rule says whether a session still needs its shadow branch, for
// summaries and full states alike.
func TestHoldsShadowBranch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		st   State
		want bool
	}{
		{"no base", State{CheckpointCount: 2, Phase: PhaseActive}, false},
		{"ended, nothing left", State{BaseCommit: "abc", Phase: PhaseEnded}, false},
		{"idle, nothing left", State{BaseCommit: "abc", Phase: PhaseIdle}, false},
		{"steps", State{BaseCommit: "abc", Phase: PhaseEnded, CheckpointCount: 1}, true},
		{"touched files", State{BaseCommit: "abc", Phase: PhaseIdle, FilesTouched: []string{"a.go"}}, true},
		{"turn end pending", State{BaseCommit: "abc", Phase: PhaseIdle, TurnEnds: []PendingTurnEnd{{}}}, true},
		{"active", State{BaseCommit: "abc", Phase: PhaseActive}, true},
	}
	for _, c := range cases {
		if got := c.st.HoldsShadowBranch(); got != c.want {
			t.Errorf("%s: State.HoldsShadowBranch = %v, want %v", c.name, got, c.want)
		}
		e := entryFor(&c.st, fingerprint{}, c.st.StartedAt)
		if got := e.Summary.HoldsShadowBranch(); got != c.want {
			t.Errorf("%s: Summary.HoldsShadowBranch = %v, want %v", c.name, got, c.want)
		}
	}
}
