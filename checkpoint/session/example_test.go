package session_test

import (
	"fmt"
	"os"
	"time"

	"github.com/entirecli/entire/checkpoint/session"
)

func ExampleTransition() {
	// A commit while the agent is mid-turn condenses the session.
	phase, actions := session.Transition(session.PhaseActive, session.EventGitCommit, session.TransitionContext{})
	fmt.Println(phase, actions)
	// The same commit made by a rebase does nothing.
	phase, actions = session.Transition(session.PhaseActive, session.EventGitCommit,
		session.TransitionContext{SequenceOperation: true})
	fmt.Println(phase, actions)
	// Output:
	// active [Condense UpdateLastInteraction]
	// active []
}

func ExampleStore_Find() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	store := session.NewStore(session.Options{GitCommonDir: dir})
	_ = store.Save(&session.State{SessionID: "a1", WorktreePath: "/repo", Phase: session.PhaseActive,
		StartedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	_ = store.Save(&session.State{SessionID: "b2", WorktreePath: "/repo-wt", Phase: session.PhaseIdle})

	// The post-commit hook asks for the sessions of its worktree; only the
	// small index is read, not every state file.
	sums, corrupt, err := store.Find(session.Query{WorktreePath: "/repo", EndedSince: time.Now().Add(-24 * time.Hour)})
	fmt.Println(len(sums), sums[0].SessionID, sums[0].Phase, len(corrupt), err)
	// Output: 1 a1 active 0 <nil>
}
