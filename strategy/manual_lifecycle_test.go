package strategy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// `git commit --amend` of a linked commit after more agent work keeps the
// trailer, and the session's slot of that checkpoint then holds both
// scopes: steps, files, tokens and prompts added up.
func TestManualCommitAmendMergesSlot(t *testing.T) {
	t.Parallel()
	r := newMCRepo(t)
	r.turn("s1", "one", map[string]string{"a.txt": "a\n"}, 10, 1)
	id := r.commit("add a", "a.txt")
	if id == "" {
		t.Fatal("first commit not linked")
	}
	r.turn("s1", "two", map[string]string{"b.txt": "b\n"}, 5, 2)
	gittest.Git(t, r.dir, "add", "b.txt")
	// git gives the amended commit's message, trailer included.
	msg := r.prepare(gittest.Git(t, r.dir, "log", "-1", "--format=%B")+"\n", "commit")
	path := filepath.Join(t.TempDir(), "MSG")
	if err := os.WriteFile(path, []byte(msg), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, r.dir, "commit", "-q", "--amend", "-F", path)
	if err := r.m.PostCommit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _ := checkpoint.CheckpointOf(gittest.Git(t, r.dir, "log", "-1", "--format=%B")); got != id {
		t.Fatalf("amended commit links %q, want %s", got, id)
	}
	cp, err := r.env.checkpoints().Read(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(cp.Sessions) != 1 {
		t.Fatalf("%d slots, want one merged slot", len(cp.Sessions))
	}
	meta := cp.Sessions[0].Metadata
	if meta.CheckpointsCount != 2 || !reflect.DeepEqual(meta.FilesTouched, []string{"a.txt", "b.txt"}) ||
		meta.TokenUsage == nil || *meta.TokenUsage != (agent.TokenUsage{InputTokens: 15, OutputTokens: 3, APICallCount: 2}) {
		t.Errorf("merged slot %+v tokens %+v", meta, meta.TokenUsage)
	}
	if p := cp.Sessions[0].Prompts(); !reflect.DeepEqual(p, []string{"one", "two"}) {
		t.Errorf("merged prompts %q", p)
	}
	if a := meta.InitialAttribution; a == nil || a.AgentLines != 2 || a.TotalCommitted != 2 {
		t.Errorf("merged attribution %+v", a)
	}
}

// A trailer that entire did not add for the commit (a cherry-pick, a
// copied message) links for reading only: nothing is condensed under it.
func TestManualCommitForeignTrailer(t *testing.T) {
	t.Parallel()
	r := newMCRepo(t)
	r.turn("s1", "write a", map[string]string{"a.txt": "a\n"}, 1, 1)
	gittest.Git(t, r.dir, "add", "a.txt")
	gittest.Git(t, r.dir, "commit", "-q", "-m", "picked\n\nEntire-Checkpoint: 0123456789ab")
	if err := r.m.PostCommit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r.env.checkpoints().Exists("0123456789ab") {
		t.Error("a session was condensed under a foreign trailer")
	}
	if st := r.state("s1"); st.CheckpointCount != 1 || st.LastCheckpointID != "" {
		t.Errorf("session state: count %d last %q", st.CheckpointCount, st.LastCheckpointID)
	}
}

// A post-commit that never ran (killed) leaves prepare-commit-msg's mark;
// CompletePending condenses the commit as the hook would have, once.
func TestCompletePendingAfterKilledPostCommit(t *testing.T) {
	t.Parallel()
	r := newMCRepo(t)
	r.turn("s1", "write a", map[string]string{"a.txt": "a\n"}, 1, 1)
	gittest.Git(t, r.dir, "add", "a.txt")
	msg := r.prepare("add a\n", "message")
	id, ok := checkpoint.CheckpointOf(msg)
	if !ok {
		t.Fatal("no trailer")
	}
	if !HasPending(r.env.Repo) {
		t.Fatal("prepare-commit-msg left no mark")
	}
	// Still being written (an editor open): nothing to complete yet.
	if done := CompletePending(context.Background(), r.env); len(done) != 0 {
		t.Errorf("completed %+v before the commit exists", done)
	}
	gittest.Git(t, r.dir, "commit", "-q", "-m", strings.TrimSuffix(msg, "\n"))
	done := CompletePending(context.Background(), r.env)
	if len(done) != 1 || done[0].Err != nil || done[0].CheckpointID != id || done[0].Commit != r.head() {
		t.Fatalf("CompletePending = %+v", done)
	}
	if r.slot(id, "s1") == nil {
		t.Fatal("the session was not condensed")
	}
	if HasPending(r.env.Repo) || len(FailedPending(r.env.Repo)) != 0 {
		t.Error("marks left after completing")
	}
	if again := CompletePending(context.Background(), r.env); len(again) != 0 {
		t.Errorf("completed twice: %+v", again)
	}
	if st := r.state("s1"); st.BaseCommit != r.head() || st.LastCheckpointID != id.String() {
		t.Errorf("state after completion: base %s last %s", st.BaseCommit, st.LastCheckpointID)
	}
}

// Session start counts the other sessions with work on the same commit;
// an ended session is still condensed when a commit holds its work, and
// one that touched nothing is moved onto the commit.
func TestManualCommitSessionLifecycle(t *testing.T) {
	t.Parallel()
	r := newMCRepo(t)
	ctx := context.Background()
	r.turn("s1", "write a", map[string]string{"a.txt": "a\n"}, 1, 1)
	r.turn("s2", "write b", map[string]string{"b.txt": "b\n"}, 1, 1)
	in := r.startTurn("s3", "just talk")
	r.endTurn(in, "nothing to change", 1, 1)
	for _, tc := range []struct {
		session string
		want    int
	}{{"new", 2}, {"s1", 1}, {"s3", 2}} {
		if got, err := r.m.SessionStart(ctx, r.input(tc.session, "")); err != nil || got != tc.want {
			t.Errorf("SessionStart(%s) = %d, %v; want %d others", tc.session, got, err, tc.want)
		}
	}
	for _, id := range []string{"s1", "s3"} {
		if err := r.m.SessionEnd(ctx, r.input(id, "")); err != nil {
			t.Fatal(err)
		}
		if st := r.state(id); st.Phase != session.PhaseEnded || st.EndedAt == nil {
			t.Errorf("%s after SessionEnd: phase %s ended %v", id, st.Phase, st.EndedAt)
		}
	}
	id := r.commit("add a", "a.txt")
	if id == "" || r.slot(id, "s1") == nil {
		t.Fatalf("ended session's work not condensed (checkpoint %q)", id)
	}
	if r.slot(id, "s2") != nil || r.slot(id, "s3") != nil {
		t.Error("sessions without committed work condensed")
	}
	head := r.head()
	for _, id := range []string{"s1", "s3"} {
		if st := r.state(id); st.BaseCommit != head || st.Phase != session.PhaseEnded {
			t.Errorf("%s after the commit: base %s phase %s", id, st.BaseCommit, st.Phase)
		}
	}
	if _, err := r.m.SessionStart(ctx, r.input("s1", "")); err != nil {
		t.Fatal(err)
	}
	if st := r.state("s1"); st.Phase != session.PhaseIdle || st.EndedAt != nil {
		t.Errorf("resumed session: phase %s ended %v", st.Phase, st.EndedAt)
	}
}

// A session whose HEAD moved without a condensation (the user committed
// something else) takes its shadow branch along at its next turn start.
func TestManualCommitMigratesShadowBranch(t *testing.T) {
	t.Parallel()
	r := newMCRepo(t)
	r.turn("s1", "write a", map[string]string{"a.txt": "a\n"}, 1, 1)
	st := r.state("s1")
	oldBranch, oldTip := shadowBranch(st), r.shadowTip(st)
	r.write(map[string]string{"u.txt": "mine\n"})
	if id := r.commit("the user's file", "u.txt"); id != "" {
		t.Fatalf("user's commit linked to %s", id)
	}
	r.turn("s1", "write b", map[string]string{"b.txt": "b\n"}, 1, 1)
	st = r.state("s1")
	if st.BaseCommit != r.head() || shadowBranch(st) == oldBranch {
		t.Fatalf("session not moved: base %s branch %s", st.BaseCommit, shadowBranch(st))
	}
	if out := gittest.Git(t, r.dir, "branch", "--list", oldBranch); out != "" {
		t.Error("old shadow branch kept")
	}
	tip := r.shadowTip(st)
	if parent := gittest.Git(t, r.dir, "log", "-1", "--format=%P", tip); parent != oldTip {
		t.Errorf("new step's parent %s, want the old tip %s", parent, oldTip)
	}
	if !reflect.DeepEqual(st.FilesTouched, []string{"a.txt", "b.txt"}) || st.CheckpointCount != 2 {
		t.Errorf("files %v count %d", st.FilesTouched, st.CheckpointCount)
	}
}

// CondenseSession (entire doctor) condenses a session's steps under a
// checkpoint no commit names, or fails without changing anything.
func TestCondenseSession(t *testing.T) {
	t.Parallel()
	r := newMCRepo(t)
	ctx := context.Background()
	if err := r.m.CondenseSession(ctx, "missing", "0123456789ab"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("missing session: %v", err)
	}
	in := r.startTurn("idle", "nothing")
	r.endTurn(in, "nothing", 1, 1)
	if err := r.m.CondenseSession(ctx, "idle", "0123456789ab"); err == nil || !strings.Contains(err.Error(), "no checkpoints") {
		t.Errorf("session without steps: %v", err)
	}
	r.turn("s1", "write a", map[string]string{"a.txt": "a\n"}, 2, 3)
	branch := shadowBranch(r.state("s1"))
	if err := r.m.CondenseSession(ctx, "s1", "0123456789ab"); err != nil {
		t.Fatal(err)
	}
	s := r.slot("0123456789ab", "s1")
	if s == nil || !reflect.DeepEqual(s.Metadata.FilesTouched, []string{"a.txt"}) || s.Metadata.CheckpointsCount != 1 {
		t.Fatalf("slot %+v", s)
	}
	st := r.state("s1")
	if st.Phase != session.PhaseIdle || st.CheckpointCount != 0 || st.FilesTouched != nil || st.LastCheckpointID != "0123456789ab" || st.BaseCommit != r.head() {
		t.Errorf("state: %+v", st)
	}
	if out := gittest.Git(t, r.dir, "branch", "--list", branch); out != "" {
		t.Error("shadow branch kept")
	}
}
