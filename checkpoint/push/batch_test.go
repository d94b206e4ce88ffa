package push

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// writeBigCheckpoint writes checkpoint id with a transcript of about size
// bytes that does not compress (random words).
func writeBigCheckpoint(t *testing.T, repo *gitrepo.Repo, id checkpoint.ID, seed uint64, size int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	for b.Len() < size {
		fmt.Fprintf(&b, `{"type":"user","n":%d,"text":"%x"}`+"\n", rng.Uint64(), rng.Uint64())
	}
	ts, err := checkpoint.AppendJSONL(repo, nil, []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkpoint.NewStore(repo, fixedNow).WriteSession(context.Background(), id, checkpoint.SessionWrite{
		Metadata:   checkpoint.SessionMetadata{SessionID: string(id), Strategy: checkpoint.StrategyManualCommit},
		Transcript: ts,
	}, checkpoint.CommitInfo{}); err != nil {
		t.Fatal(err)
	}
}

// In the hook (SyncLimit), a push of more than a few megabytes is left
// to a background push, which sends it in batches that each land.
func TestLargePushGoesToTheBackgroundInBatches(t *testing.T) {
	t.Parallel()
	work, bare := newClone(t)
	gittest.Git(t, bare, "config", "core.logAllRefUpdates", "always")
	repo := openRepo(t, work)
	ctx := context.Background()
	writeCheckpoint(t, repo, "a3b2c4d5e6f0", "s0")
	if err := PrePush(ctx, repo, Options{Destination: origin, Remote: "origin", PushSessions: true, SyncLimit: 1e9, Env: testEnv(t)}); err != nil {
		t.Fatalf("a small push: %v", err)
	}
	if remoteRef(t, bare, metaRef) != localRef(t, repo, metaRef) {
		t.Fatal("the small push did not land at once")
	}
	for i := range 6 {
		writeBigCheckpoint(t, repo, checkpoint.ID(fmt.Sprintf("a3b2c4d5e6f%d", i+1)), uint64(i), 2<<20)
	}
	var log syncBuffer
	err := PrePush(ctx, repo, Options{Destination: origin, Remote: "origin", PushSessions: true, SyncLimit: 1e9, Log: &log, Env: testEnv(t)})
	if !errors.Is(err, ErrBackground) || !strings.Contains(log.String(), "in the background") {
		t.Fatalf("a large push in the hook: %v\n%s", err, log.String())
	}
	before := remoteRef(t, bare, metaRef)
	if before == localRef(t, repo, metaRef) {
		t.Fatal("the hook pushed the large data itself")
	}
	log = syncBuffer{}
	if err := PrePush(ctx, repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Background: true, BatchBytes: 2 << 20, Log: &log, Env: testEnv(t)}); err != nil {
		t.Fatalf("background push: %v\n%s", err, log.String())
	}
	if remoteRef(t, bare, metaRef) != localRef(t, repo, metaRef) {
		t.Fatalf("the background push did not land:\n%s", log.String())
	}
	updates := strings.Count(gittest.Git(t, bare, "reflog", "show", "--format=%H", metaRef), "\n") + 1
	if updates < 3 {
		t.Errorf("the remote's branch moved %d times: the push was not in batches", updates)
	}
}
