package session

import (
	"os"
	"path/filepath"
)

// Phase is the lifecycle phase of a session (SPEC 3.3).
type Phase string

// Phases. Legacy and unknown values are mapped by NormalizePhase.
const (
	PhaseActive Phase = "active"
	PhaseIdle   Phase = "idle"
	PhaseEnded  Phase = "ended"
)

// NormalizePhase maps a stored phase to a known one: "active" and the legacy
// "active_committed" become PhaseActive, "ended" PhaseEnded, and everything
// else (empty, "idle", unknown) PhaseIdle.
func NormalizePhase(s string) Phase {
	switch s {
	case string(PhaseActive), "active_committed":
		return PhaseActive
	case string(PhaseEnded):
		return PhaseEnded
	}
	return PhaseIdle
}

// Event is something that happens to a session.
type Event int

// Events of the state machine.
const (
	// EventTurnStart: the user submitted a prompt (UserPromptSubmit /
	// BeforeAgent).
	EventTurnStart Event = iota + 1
	// EventTurnEnd: the agent finished its response (Stop / AfterAgent).
	EventTurnEnd
	// EventGitCommit: the user committed (post-commit).
	EventGitCommit
	// EventSessionStart: the agent started or resumed the session.
	EventSessionStart
	// EventSessionStop: the agent ended the session (SessionEnd).
	EventSessionStop
)

// String returns the event name.
func (e Event) String() string {
	switch e {
	case EventTurnStart:
		return "TurnStart"
	case EventTurnEnd:
		return "TurnEnd"
	case EventGitCommit:
		return "GitCommit"
	case EventSessionStart:
		return "SessionStart"
	case EventSessionStop:
		return "SessionStop"
	}
	return "Event(?)"
}

// Action is a side effect the caller of Transition must perform, in the
// order returned.
type Action int

// Actions of the state machine.
const (
	// ActionCondense: condense the session into a committed checkpoint.
	ActionCondense Action = iota + 1
	// ActionCondenseIfFilesTouched: condense an ended session (returned
	// only when TransitionContext.HasFilesTouched).
	ActionCondenseIfFilesTouched
	// ActionDiscardIfNoFiles: drop an ended session that touched no files.
	ActionDiscardIfNoFiles
	// ActionWarnStaleSession: a session start arrived for a session that is
	// still active; log it, nothing else.
	ActionWarnStaleSession
	// ActionClearEndedAt: set EndedAt to nil.
	ActionClearEndedAt
	// ActionUpdateLastInteraction: set LastInteractionTime to now.
	ActionUpdateLastInteraction
)

// String returns the action name.
func (a Action) String() string {
	switch a {
	case ActionCondense:
		return "Condense"
	case ActionCondenseIfFilesTouched:
		return "CondenseIfFilesTouched"
	case ActionDiscardIfNoFiles:
		return "DiscardIfNoFiles"
	case ActionWarnStaleSession:
		return "WarnStaleSession"
	case ActionClearEndedAt:
		return "ClearEndedAt"
	case ActionUpdateLastInteraction:
		return "UpdateLastInteraction"
	}
	return "Action(?)"
}

// TransitionContext is what Transition needs to know beyond phase and event.
type TransitionContext struct {
	// HasFilesTouched reports whether the session touched files since its
	// last condensation (len(State.FilesTouched) > 0).
	HasFilesTouched bool
	// SequenceOperation reports a rebase, cherry-pick or revert in
	// progress (see SequenceOperationInProgress); commits made by it are
	// not condensed.
	SequenceOperation bool
}

// Transition is the phase state machine of SPEC 3.3 as a pure function. The
// input phase is normalised first (NormalizePhase). It returns the new phase
// and the actions to perform, in order; a nil slice means nothing to do.
// Unknown events leave the phase unchanged with no actions.
func Transition(phase Phase, ev Event, ctx TransitionContext) (Phase, []Action) {
	phase = NormalizePhase(string(phase))
	switch ev {
	case EventTurnStart:
		if phase == PhaseEnded {
			return PhaseActive, []Action{ActionClearEndedAt, ActionUpdateLastInteraction}
		}
		// idle starts a turn; active means the last turn never ended
		// (Ctrl-C), so the new turn simply continues.
		return PhaseActive, []Action{ActionUpdateLastInteraction}
	case EventTurnEnd:
		if phase == PhaseActive {
			return PhaseIdle, []Action{ActionUpdateLastInteraction}
		}
		return phase, nil
	case EventGitCommit:
		if ctx.SequenceOperation {
			return phase, nil
		}
		if phase == PhaseEnded {
			if ctx.HasFilesTouched {
				return PhaseEnded, []Action{ActionCondenseIfFilesTouched, ActionUpdateLastInteraction}
			}
			return PhaseEnded, []Action{ActionDiscardIfNoFiles, ActionUpdateLastInteraction}
		}
		return phase, []Action{ActionCondense, ActionUpdateLastInteraction}
	case EventSessionStart:
		switch phase {
		case PhaseActive:
			return PhaseActive, []Action{ActionWarnStaleSession}
		case PhaseEnded:
			return PhaseIdle, []Action{ActionClearEndedAt}
		}
		return phase, nil
	case EventSessionStop:
		if phase == PhaseEnded {
			return PhaseEnded, nil
		}
		return PhaseEnded, []Action{ActionUpdateLastInteraction}
	}
	return phase, nil
}

// RebaseInProgress reports whether gitDir (the per-worktree git dir, `git
// rev-parse --git-dir`) has a rebase in progress: rebase-merge or
// rebase-apply exists, as git's own status code checks.
func RebaseInProgress(gitDir string) bool {
	return exists(filepath.Join(gitDir, "rebase-merge")) || exists(filepath.Join(gitDir, "rebase-apply"))
}

// SequenceOperationInProgress reports a rebase, cherry-pick (CHERRY_PICK_HEAD)
// or revert (REVERT_HEAD) in progress in gitDir, the per-worktree git dir.
// Commits made by these operations replay existing work and are not
// condensed. It costs at most four stat calls.
func SequenceOperationInProgress(gitDir string) bool {
	return RebaseInProgress(gitDir) ||
		exists(filepath.Join(gitDir, "CHERRY_PICK_HEAD")) ||
		exists(filepath.Join(gitDir, "REVERT_HEAD"))
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
