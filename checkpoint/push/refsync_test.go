package push

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/secretscan"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A checkpoint ref is pushed once, as itself, never forced; when a
// teammate added to the same checkpoint first, the remote's copy is
// fetched and both versions are joined by session, on top of the
// remote's: nothing of either is lost, and the queue is empty after.
func TestPrePushRefsJoinsARejectedCheckpoint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	work, bare := newClone(t)
	repo := openRepo(t, work)
	id := checkpoint.NewULID(fixedNow())
	store := checkpoint.NewStore(repo, fixedNow).WithLayout(checkpoint.LayoutRefs)
	write := func(s *checkpoint.Store, session string) {
		t.Helper()
		if _, err := s.WriteSession(ctx, id, checkpoint.SessionWrite{
			Metadata: checkpoint.SessionMetadata{SessionID: session, Strategy: checkpoint.StrategyManualCommit, CheckpointsCount: 1},
			Prompts:  "prompt of " + session,
		}, checkpoint.CommitInfo{}); err != nil {
			t.Fatal(err)
		}
	}
	write(store, "s1")
	if q, _ := store.Queued(); len(q) != 1 || q[0] != id {
		t.Fatalf("queue after a write: %v", q)
	}
	var log syncBuffer
	opts := Options{Destination: origin, Remote: "origin", PushSessions: true, Env: testEnv(t), Log: &log}
	if err := PrePush(ctx, repo, opts); err != nil {
		t.Fatal(err)
	}
	if got, want := remoteRef(t, bare, string(id.RefName())), localRef(t, repo, id.RefName()); got != want {
		t.Fatalf("remote %s = %q, local %q\n%s", id.RefName(), got, want, log.String())
	}
	if q, _ := store.Queued(); len(q) != 0 {
		t.Fatalf("queue after the push: %v", q)
	}
	if refs := gittest.Git(t, bare, "for-each-ref", "--format=%(refname)"); strings.Contains(refs, "entire/checkpoints/v1") || strings.Contains(refs, "entire-sync") {
		t.Fatalf("remote refs:\n%s", refs)
	}

	// A teammate adds a session to the checkpoint and pushes first.
	mate := cloneOf(t, bare)
	gittest.Git(t, mate, "fetch", "-q", "origin", string(id.RefName())+":"+string(id.RefName()))
	mrepo := openRepo(t, mate)
	write(checkpoint.NewStore(mrepo, fixedNow), "s2")
	if err := PrePush(ctx, mrepo, Options{Destination: origin, Remote: "origin", PushSessions: true, Env: testEnv(t)}); err != nil {
		t.Fatal(err)
	}
	// Here a third session is added, and the push is rejected, joined and
	// pushed again.
	write(store, "s3")
	log = syncBuffer{}
	opts.Log = &log
	if err := PrePush(ctx, repo, opts); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "could not") || strings.Contains(log.String(), "not yet on") {
		t.Fatalf("push log:\n%s", log.String())
	}
	if got, want := remoteRef(t, bare, string(id.RefName())), localRef(t, repo, id.RefName()); got != want {
		t.Fatalf("after the join: remote %q, local %q\n%s", got, want, log.String())
	}
	cp, err := checkpoint.NewStore(repo, fixedNow).Read(id)
	if err != nil {
		t.Fatal(err)
	}
	var sessions []string
	for _, s := range cp.Sessions {
		sessions = append(sessions, s.Metadata.SessionID)
	}
	if strings.Join(sessions, ",") != "s1,s2,s3" {
		t.Errorf("sessions of the joined checkpoint: %v", sessions)
	}
	if cp.Root.Sessions[2].Metadata != "/2/metadata.json" {
		t.Errorf("root metadata paths: %+v", cp.Root.Sessions)
	}
	// The teammate's commit is kept: the join is on top of it.
	mateTip := localRef(t, mrepo, id.RefName())
	if _, err := gittest.GitErr(bare, "merge-base", "--is-ancestor", mateTip, string(id.RefName())); err != nil {
		t.Errorf("the remote's history lost the teammate's commit")
	}
	if q, _ := store.Queued(); len(q) != 0 {
		t.Errorf("queue after the join: %v", q)
	}
	if refs := gittest.Git(t, work, "for-each-ref", "--format=%(refname)", syncRefPrefix); refs != "" {
		t.Errorf("scratch refs left: %s", refs)
	}
	gittest.Fsck(t, bare)
}

// A remote whose last push of checkpoint refs took over a second gets the
// next from the background push, not while the user's push waits; a
// record a day old is forgotten.
func TestPrePushRefsSlowRemoteGoesToBackground(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	work, bare := newClone(t)
	repo := openRepo(t, work)
	id := checkpoint.NewULID(fixedNow())
	if _, err := checkpoint.NewStore(repo, fixedNow).WriteSession(ctx, id, checkpoint.SessionWrite{
		Metadata: checkpoint.SessionMetadata{SessionID: "s1", Strategy: checkpoint.StrategyManualCommit},
	}, checkpoint.CommitInfo{}); err != nil {
		t.Fatal(err)
	}
	rememberRefPush(repo, "origin", 1400*time.Millisecond)
	var log syncBuffer
	opts := Options{Destination: origin, Remote: "origin", PushSessions: true, Env: testEnv(t), Log: &log, SyncLimit: 1500 * time.Millisecond}
	if err := PrePush(ctx, repo, opts); !errors.Is(err, ErrBackground) {
		t.Fatalf("PrePush = %v, want ErrBackground\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "its last push took 1.4 s") || remoteRef(t, bare, string(id.RefName())) != "" {
		t.Fatalf("the hook pushed, or did not say why not:\n%s", log.String())
	}
	// The background push sends it, and leaves the record alone.
	opts.Background, opts.SyncLimit = true, 0
	if err := PrePush(ctx, repo, opts); err != nil {
		t.Fatal(err)
	}
	if remoteRef(t, bare, string(id.RefName())) == "" {
		t.Fatal("the background push did not land")
	}
	if got := lastRefPush(repo, "origin"); got != 1400*time.Millisecond {
		t.Errorf("record after a background push: %s", got)
	}
	old := time.Now().Add(-25 * time.Hour)
	if err := os.Chtimes(filepath.Join(repo.CommonDir, refPushTimes), old, old); err != nil {
		t.Fatal(err)
	}
	if got := lastRefPush(repo, "origin"); got != 0 {
		t.Errorf("a day-old record is still believed: %s", got)
	}
}

// FetchCheckpoints brings the checkpoints asked, each by its ref, names
// those the remote lacks, and brings the remote's purge record along,
// joined with this clone's own.
func TestFetchCheckpointsBringsThePurgeRecord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	work, bare := newClone(t)
	repo := openRepo(t, work)
	store := checkpoint.NewStore(repo, fixedNow)
	write := func(id checkpoint.ID) {
		t.Helper()
		if _, err := store.WriteSession(ctx, id, checkpoint.SessionWrite{
			Metadata: checkpoint.SessionMetadata{SessionID: "s-" + string(id), Strategy: checkpoint.StrategyManualCommit},
		}, checkpoint.CommitInfo{}); err != nil {
			t.Fatal(err)
		}
	}
	first, second := checkpoint.NewULID(fixedNow()), checkpoint.NewULID(fixedNow().Add(time.Hour))
	write(first)
	write(second)
	record := func(r *gitrepo.Repo, branch string) {
		t.Helper()
		if err := secretscan.RecordPurges(ctx, r, []secretscan.PurgeRecord{{Branch: branch, OldTip: strings.Repeat("1", 40), NewTip: strings.Repeat("2", 40), Date: fixedNow()}}, fixedNow()); err != nil {
			t.Fatal(err)
		}
	}
	record(repo, string(first.RefName()))
	gittest.Git(t, work, "push", "-q", "origin", "refs/entire/*:refs/entire/*")

	mate := cloneOf(t, bare)
	mrepo := openRepo(t, mate)
	record(mrepo, string(second.RefName())) // a record of its own
	missing, err := FetchCheckpoints(ctx, mrepo, origin, []checkpoint.ID{first, "01K9TQ8ZP7X3F5M2WVJ4CNRB6D"}, 0)
	if err != nil || len(missing) != 1 || missing[0] != "01K9TQ8ZP7X3F5M2WVJ4CNRB6D" {
		t.Fatalf("FetchCheckpoints = %v, %v", missing, err)
	}
	if remoteRef(t, mate, string(first.RefName())) == "" || remoteRef(t, mate, string(second.RefName())) != "" {
		t.Error("the clone did not get exactly the checkpoint asked for")
	}
	h, err := mrepo.ReadRef(secretscan.PurgesRef)
	if err != nil {
		t.Fatal(err)
	}
	p, err := secretscan.ReadPurges(mrepo, h)
	if err != nil || len(p.Purges) != 2 {
		t.Fatalf("the clone's purge record after the fetch: %+v, %v", p, err)
	}
	if refs := gittest.Git(t, mate, "for-each-ref", "--format=%(refname)", syncRefPrefix); refs != "" {
		t.Errorf("scratch refs left: %s", refs)
	}
}
