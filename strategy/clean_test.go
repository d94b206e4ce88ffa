package strategy

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// FindOrphans lists what nothing uses any more, and DeleteOrphans removes
// exactly that: each case below is one item, kept or listed.
func TestFindAndDeleteOrphans(t *testing.T) {
	t.Parallel()
	env, _ := testEnv(t)
	repo, store, dir := env.Repo, env.Sessions, env.Repo.Root
	ctx := context.Background()
	now := time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC)
	head := gittest.Git(t, dir, "rev-parse", "HEAD")
	other := strings.Repeat("b", 40)
	done := "d" + strings.Repeat("0", 39)
	old, recent := now.Add(-time.Hour), now.Add(-time.Minute)

	// Session states, by what keeps them.
	states := []struct {
		id       string
		phase    session.Phase
		started  time.Time
		lastSeen *time.Time
		base     string
		lastCP   string
		steps    int
		orphan   bool
	}{
		{id: "old-idle", phase: session.PhaseIdle, started: old, base: other, orphan: true},
		{id: "old-ended-no-base", phase: session.PhaseEnded, started: old, orphan: true},
		{id: "active", phase: session.PhaseActive, started: old},
		{id: "young", phase: session.PhaseIdle, started: recent},
		{id: "seen-recently", phase: session.PhaseIdle, started: old, lastSeen: &recent},
		{id: "condensed", phase: session.PhaseIdle, started: old, lastCP: "aaaaaaaaaaaa"},
		{id: "with-shadow", phase: session.PhaseIdle, started: old, base: head, steps: 2},
		// Ended with nothing left on its branch: the branch is no longer
		// held (session.State.HoldsShadowBranch), the state is young.
		{id: "done-young", phase: session.PhaseEnded, started: recent, base: done},
		{id: "on-metadata-branch", phase: session.PhaseIdle, started: old},
	}
	for _, s := range states {
		st := &session.State{SessionID: s.id, Phase: s.phase, StartedAt: s.started, LastInteractionTime: s.lastSeen,
			BaseCommit: s.base, LastCheckpointID: s.lastCP, CheckpointCount: s.steps, WorktreePath: dir}
		if err := store.Save(st); err != nil {
			t.Fatal(err)
		}
	}
	// Shadow branches: that of "with-shadow" is in use; a stray one is not;
	// the metadata branch and a user's entire/ branch are no shadow
	// branches.
	inUse := checkpoint.ShadowBranchName(head, "")
	stray := checkpoint.ShadowBranchName("c"+strings.Repeat("0", 39), "")
	gittest.Git(t, dir, "branch", inUse)
	gittest.Git(t, dir, "branch", stray)
	released := checkpoint.ShadowBranchName(done, "")
	gittest.Git(t, dir, "branch", released)
	gittest.Git(t, dir, "branch", "entire/not-a-shadow")

	// Checkpoints: auto-commit ones, linked or not; a manual-commit one
	// (never an orphan); the session "on-metadata-branch" is named by one.
	cps := checkpoint.NewStore(repo, func() time.Time { return now })
	write := func(id checkpoint.ID, sessionID, strategy string) {
		t.Helper()
		ts, err := checkpoint.AppendJSONL(repo, nil, []byte("{}\n"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cps.WriteSession(ctx, id, checkpoint.SessionWrite{Metadata: checkpoint.SessionMetadata{SessionID: sessionID, Strategy: strategy}, Transcript: ts}, checkpoint.CommitInfo{}); err != nil {
			t.Fatal(err)
		}
	}
	write("a00000000001", "x1", checkpoint.StrategyAutoCommit)                   // linked below
	write("a00000000002", "x2", checkpoint.StrategyAutoCommit)                   // orphan
	write("a00000000003", "on-metadata-branch", checkpoint.StrategyManualCommit) // manual: kept
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "linked\n\nEntire-Checkpoint: a00000000001")

	want := Orphans{
		Branches:    []string{stray, released},
		Sessions:    []string{"old-ended-no-base", "old-idle"},
		Checkpoints: []checkpoint.ID{"a00000000002"},
	}
	found, err := FindOrphans(ctx, repo, store, now)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(found, want) {
		t.Fatalf("FindOrphans =\n%+v\nwant\n%+v", found, want)
	}
	if found.Count() != 5 {
		t.Errorf("Count = %d", found.Count())
	}

	deleted, failed := DeleteOrphans(ctx, repo, store, found)
	if len(failed) > 0 || !reflect.DeepEqual(deleted, want) {
		t.Fatalf("DeleteOrphans = %+v, failures %q", deleted, failed)
	}
	again, err := FindOrphans(ctx, repo, store, now)
	if err != nil || again.Count() != 0 {
		t.Errorf("after deleting, FindOrphans = %+v, %v", again, err)
	}
	if gittest.Git(t, dir, "branch", "--list", inUse) == "" {
		t.Error("the shadow branch in use was deleted")
	}
	if _, err := store.Load("active"); err != nil {
		t.Errorf("an active session's state was deleted: %v", err)
	}
	if ids, _ := cps.List(); len(ids) != 2 {
		t.Errorf("checkpoints left: %v", ids)
	}
}

// A failure to delete one item is reported and the others are deleted.
func TestDeleteOrphansReportsFailures(t *testing.T) {
	t.Parallel()
	env, _ := testEnv(t)
	if err := env.Sessions.Save(&session.State{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	found := Orphans{Sessions: []string{"../bad", "s1"}}
	deleted, failed := DeleteOrphans(context.Background(), env.Repo, env.Sessions, found)
	if !reflect.DeepEqual(deleted.Sessions, []string{"s1"}) || len(failed) != 1 || !strings.HasPrefix(failed[0], "session state ../bad: ") {
		t.Errorf("DeleteOrphans = %+v, %q", deleted, failed)
	}
}
