package session

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestTransitionTable(t *testing.T) {
	t.Parallel()
	const (
		A = ActionCondense
		C = ActionCondenseIfFilesTouched
		D = ActionDiscardIfNoFiles
		W = ActionWarnStaleSession
		E = ActionClearEndedAt
		U = ActionUpdateLastInteraction
	)
	plain := TransitionContext{}
	files := TransitionContext{HasFilesTouched: true}
	seq := TransitionContext{SequenceOperation: true}
	seqFiles := TransitionContext{SequenceOperation: true, HasFilesTouched: true}
	tests := []struct {
		from    Phase
		ev      Event
		ctx     TransitionContext
		want    Phase
		actions []Action
	}{
		// idle row
		{PhaseIdle, EventTurnStart, plain, PhaseActive, []Action{U}},
		{PhaseIdle, EventTurnEnd, plain, PhaseIdle, nil},
		{PhaseIdle, EventGitCommit, plain, PhaseIdle, []Action{A, U}},
		{PhaseIdle, EventGitCommit, files, PhaseIdle, []Action{A, U}},
		{PhaseIdle, EventGitCommit, seq, PhaseIdle, nil},
		{PhaseIdle, EventSessionStart, plain, PhaseIdle, nil},
		{PhaseIdle, EventSessionStop, plain, PhaseEnded, []Action{U}},
		// active row
		{PhaseActive, EventTurnStart, plain, PhaseActive, []Action{U}},
		{PhaseActive, EventTurnEnd, plain, PhaseIdle, []Action{U}},
		{PhaseActive, EventGitCommit, plain, PhaseActive, []Action{A, U}},
		{PhaseActive, EventGitCommit, seqFiles, PhaseActive, nil},
		{PhaseActive, EventSessionStart, plain, PhaseActive, []Action{W}},
		{PhaseActive, EventSessionStop, plain, PhaseEnded, []Action{U}},
		// ended row
		{PhaseEnded, EventTurnStart, plain, PhaseActive, []Action{E, U}},
		{PhaseEnded, EventTurnEnd, plain, PhaseEnded, nil},
		{PhaseEnded, EventGitCommit, files, PhaseEnded, []Action{C, U}},
		{PhaseEnded, EventGitCommit, plain, PhaseEnded, []Action{D, U}},
		{PhaseEnded, EventGitCommit, seqFiles, PhaseEnded, nil},
		{PhaseEnded, EventGitCommit, seq, PhaseEnded, nil},
		{PhaseEnded, EventSessionStart, plain, PhaseIdle, []Action{E}},
		{PhaseEnded, EventSessionStop, plain, PhaseEnded, nil},
		// legacy and unknown phases are normalised first
		{"", EventTurnStart, plain, PhaseActive, []Action{U}},
		{"bogus", EventTurnEnd, plain, PhaseIdle, nil},
		{"active_committed", EventTurnEnd, plain, PhaseIdle, []Action{U}},
		{"active_committed", EventSessionStart, plain, PhaseActive, []Action{W}},
		// unknown event: no change
		{PhaseActive, Event(99), plain, PhaseActive, nil},
	}
	for _, tt := range tests {
		name := string(tt.from) + "/" + tt.ev.String()
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, actions := Transition(tt.from, tt.ev, tt.ctx)
			if got != tt.want || !reflect.DeepEqual(actions, tt.actions) {
				t.Fatalf("Transition(%q, %v, %+v) = %q %v, want %q %v",
					tt.from, tt.ev, tt.ctx, got, actions, tt.want, tt.actions)
			}
		})
	}
}

func TestNormalizePhase(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Phase{
		"active": PhaseActive, "active_committed": PhaseActive, "idle": PhaseIdle,
		"ended": PhaseEnded, "": PhaseIdle, "ACTIVE": PhaseIdle, "weird": PhaseIdle,
	} {
		if got := NormalizePhase(in); got != want {
			t.Errorf("NormalizePhase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSequenceOperationInProgress(t *testing.T) {
	t.Parallel()
	tests := []struct {
		marker     string
		dir        bool
		wantRebase bool
		wantSeq    bool
	}{
		{"", false, false, false},
		{"rebase-merge", true, true, true},
		{"rebase-apply", true, true, true},
		{"CHERRY_PICK_HEAD", false, false, true},
		{"REVERT_HEAD", false, false, true},
		{"MERGE_HEAD", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.marker, func(t *testing.T) {
			t.Parallel()
			gitDir := t.TempDir()
			if tt.marker != "" {
				p := filepath.Join(gitDir, tt.marker)
				var err error
				if tt.dir {
					err = os.Mkdir(p, 0o755)
				} else {
					err = os.WriteFile(p, []byte("x\n"), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if got := RebaseInProgress(gitDir); got != tt.wantRebase {
				t.Errorf("RebaseInProgress = %v, want %v", got, tt.wantRebase)
			}
			if got := SequenceOperationInProgress(gitDir); got != tt.wantSeq {
				t.Errorf("SequenceOperationInProgress = %v, want %v", got, tt.wantSeq)
			}
		})
	}
}

func TestNewTurnID(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 100 {
		id := NewTurnID()
		if len(id) != 12 || !checkpointIDPattern(id) {
			t.Fatalf("NewTurnID = %q, want 12 lowercase hex", id)
		}
		if seen[id] {
			t.Fatalf("duplicate turn id %q", id)
		}
		seen[id] = true
	}
}

func checkpointIDPattern(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}
