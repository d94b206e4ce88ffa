package secretscan

import (
	"context"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/redact"
	"github.com/go-git/go-git/v5/plumbing"
)

// fakeToken builds a GitHub-token-shaped secret at run time, so the
// repository holds no token-shaped literal.
func fakeToken(seed int64) string {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	rnd := rand.New(rand.NewSource(seed))
	b := make([]byte, 36)
	for i := range b {
		b[i] = alnum[rnd.Intn(len(alnum))]
	}
	return "gh" + "p_" + string(b)
}

func TestScanAndPurge(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	secret := fakeToken(1)
	// An old, unredacted checkpoint, as an older tool could have written.
	line := `{"type":"user","uuid":"u1","message":{"content":"my token is ` + secret + `"}}` + "\n"
	ts, err := checkpoint.AppendJSONL(repo, nil, []byte(line))
	if err != nil {
		t.Fatal(err)
	}
	store := checkpoint.NewStore(repo, nil)
	id := checkpoint.ID("a3b2c4d5e6f7")
	if _, err := store.WriteSession(ctx, id, checkpoint.SessionWrite{
		Metadata:   checkpoint.SessionMetadata{SessionID: "s1", Strategy: checkpoint.StrategyManualCommit},
		Transcript: ts, Prompts: "use " + secret,
	}, checkpoint.CommitInfo{}); err != nil {
		t.Fatal(err)
	}
	// A later, clean checkpoint on top: the secret stays in history.
	if _, err := store.WriteSession(ctx, "0123456789ab", checkpoint.SessionWrite{
		Metadata: checkpoint.SessionMetadata{SessionID: "s2", Strategy: checkpoint.StrategyManualCommit}, Prompts: "clean",
	}, checkpoint.CommitInfo{}); err != nil {
		t.Fatal(err)
	}
	r, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	found, err := Scan(ctx, repo, r, 0)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	for _, f := range found {
		if f.CheckpointID != string(id) || f.Ref != checkpoint.MetadataBranch {
			t.Errorf("finding %+v", f)
		}
		paths[f.Path] = true
		if strings.Contains(f.RuleID+f.Path, secret) {
			t.Error("a finding reveals the secret")
		}
	}
	if !paths["a3/b2c4d5e6f7/0/full.jsonl"] || !paths["a3/b2c4d5e6f7/0/prompt.txt"] {
		t.Fatalf("findings %+v", found)
	}
	before := gittest.Git(t, dir, "rev-list", "--count", checkpoint.MetadataBranch)
	rec, err := Purge(ctx, repo, r, checkpoint.MetadataBranch, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if rec.OldTip == rec.NewTip || len(rec.Rewritten) == 0 || len(rec.Roots) != 1 {
		t.Fatalf("purge record %+v", rec)
	}
	// Every rewritten commit descends from the root; the commits before it
	// kept their IDs.
	for _, c := range rec.Rewritten {
		if _, err := gittest.GitErr(dir, "merge-base", "--is-ancestor", rec.Roots[0], c); err != nil {
			t.Errorf("rewritten %s does not descend from root %s", c, rec.Roots[0])
		}
	}
	if n := gittest.Git(t, dir, "rev-list", "--count", rec.OldTip, "--not", rec.Roots[0]+"^@"); n != strconv.Itoa(len(rec.Rewritten)) {
		t.Errorf("%s commits from the root to the old tip, %d rewritten", n, len(rec.Rewritten))
	}
	if again, _ := Scan(ctx, repo, r, 0); len(again) != 0 {
		t.Fatalf("after purge: %+v", again)
	}
	if after := gittest.Git(t, dir, "rev-list", "--count", checkpoint.MetadataBranch); after != before {
		t.Errorf("history length %s -> %s", before, after)
	}
	if msg := gittest.Git(t, dir, "log", "-1", "--format=%s", checkpoint.MetadataBranch); msg != "Checkpoint: 0123456789ab" {
		t.Errorf("tip message %q", msg)
	}
	if prompt := gittest.Git(t, dir, "show", checkpoint.MetadataBranch+":a3/b2c4d5e6f7/0/prompt.txt"); strings.Contains(prompt, secret) || !strings.Contains(prompt, "REDACTED") {
		t.Errorf("purged prompt %q", prompt)
	}
	gittest.Fsck(t, dir)
}

// ScanRange finds a secret that a commit of the pushed range added and a
// later one of the range overwrote, one that only a merge's side brought,
// and none of what the remote already has.
func TestScanRangeSeesEveryNewCommit(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	r, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	commit := func(file, content string) string {
		gittest.WriteFile(t, dir, file, content)
		gittest.Git(t, dir, "add", file)
		gittest.Git(t, dir, "commit", "-q", "-m", "change "+file)
		return gittest.Git(t, dir, "rev-parse", "HEAD")
	}
	known := commit("old.txt", "token "+fakeToken(7)+"\n") // on the remote already
	commit("a.txt", "token "+fakeToken(8)+"\n")
	commit("a.txt", "clean\n")
	gittest.Git(t, dir, "checkout", "-q", "-b", "side", known)
	commit("b.txt", "token "+fakeToken(9)+"\n")
	gittest.Git(t, dir, "checkout", "-q", "main")
	gittest.Git(t, dir, "merge", "-q", "--no-edit", "side")
	tip := gittest.Git(t, dir, "rev-parse", "HEAD")
	found, err := ScanRange(ctx, repo, r, []plumbing.Hash{plumbing.NewHash(tip)}, []plumbing.Hash{plumbing.NewHash(known)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]int{}
	for _, f := range found {
		paths[f.Path]++
	}
	if paths["a.txt"] != 1 || paths["b.txt"] != 1 || paths["old.txt"] != 0 {
		t.Errorf("findings by path: %v", paths)
	}
}
