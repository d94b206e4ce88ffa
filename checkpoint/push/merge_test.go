package push

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// twoClones returns two work repositories sharing one bare origin that
// holds main but no metadata branch.
func twoClones(t *testing.T) (a, b, bare string) {
	t.Helper()
	a, bare = newClone(t)
	return a, cloneOf(t, bare), bare
}

func TestPrePushMergesWhenRemoteMoved(t *testing.T) {
	t.Parallel()
	a, b, bare := twoClones(t)
	ctx := context.Background()
	ra, rb := openRepo(t, a), openRepo(t, b)
	writeCheckpoint(t, ra, "111111111111", "sa", "a.go")
	if err := PrePush(ctx, ra, Options{Destination: origin, Remote: "origin", PushSessions: true, Env: testEnv(t)}); err != nil {
		t.Fatal(err)
	}
	writeCheckpoint(t, rb, "222222222222", "sb", "b.go")
	localBefore := localRef(t, rb, metaRef)
	remoteBefore := remoteRef(t, bare, metaRef)

	var log syncBuffer
	if err := PrePush(ctx, rb, Options{Destination: origin, Remote: "origin", PushSessions: true, Log: &log, Now: fixedNow, Env: testEnv(t)}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "could not push") {
		t.Fatalf("warning: %s", log.String())
	}
	tip := localRef(t, rb, metaRef)
	if got := remoteRef(t, bare, metaRef); got != tip {
		t.Fatalf("origin has %q, local merged tip %q\nlog:\n%s", got, tip, log.String())
	}
	parents := strings.Fields(gittest.Git(t, b, "rev-list", "--parents", "-n", "1", tip))[1:]
	if want := []string{localBefore, remoteBefore}; len(parents) != 2 || parents[0] != want[0] || parents[1] != want[1] {
		t.Fatalf("parents %v, want %v", parents, want)
	}
	if msg := gittest.Git(t, b, "log", "-1", "--format=%B", tip); msg != "Merge remote session logs" {
		t.Fatalf("message %q", msg)
	}
	store := checkpoint.NewStore(rb, nil)
	ids, err := store.List()
	if err != nil {
		t.Fatal(err)
	}
	if want := []checkpoint.ID{"111111111111", "222222222222"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("checkpoints %v, want %v", ids, want)
	}
	gittest.Fsck(t, b)
	gittest.Fsck(t, bare)

	// Clone a fetches the merge as a fast-forward and has nothing to push.
	if err := FetchBranch(ctx, ra, origin, checkpoint.MetadataBranch, 0); err != nil {
		t.Fatal(err)
	}
	got, err := MergeCommits(ctx, ra, plumbing.NewHash(localRef(t, ra, metaRef)), plumbing.NewHash(tip), MergeOptions{})
	if err != nil || got.String() != tip {
		t.Fatalf("fast-forward merge = %s, %v; want %s", got, err, tip)
	}
}

func TestPrePushMergesSessionsOfOneCheckpoint(t *testing.T) {
	t.Parallel()
	a, b, bare := twoClones(t)
	ctx := context.Background()
	ra, rb := openRepo(t, a), openRepo(t, b)
	const id = checkpoint.ID("a3b2c4d5e6f7")
	writeCheckpoint(t, ra, id, "sa", "a.go", "both.go")
	writeCheckpoint(t, ra, "111111111111", "sa")
	if err := PrePush(ctx, ra, Options{Destination: origin, Remote: "origin", PushSessions: true, Env: testEnv(t)}); err != nil {
		t.Fatal(err)
	}
	writeCheckpoint(t, rb, id, "sb", "b.go", "both.go")
	writeCheckpoint(t, rb, id, "sc", "c.go")
	var log syncBuffer
	if err := PrePush(ctx, rb, Options{Destination: origin, Remote: "origin", PushSessions: true, Log: &log, Env: testEnv(t)}); err != nil {
		t.Fatal(err)
	}
	if got, want := remoteRef(t, bare, metaRef), localRef(t, rb, metaRef); got != want {
		t.Fatalf("origin has %q, want %q\nlog:\n%s", got, want, log.String())
	}
	cp, err := checkpoint.NewStore(rb, nil).Read(id)
	if err != nil {
		t.Fatal(err)
	}
	var sessions []string
	for _, s := range cp.Sessions {
		sessions = append(sessions, s.Metadata.SessionID)
	}
	if want := []string{"sa", "sb", "sc"}; !reflect.DeepEqual(sessions, want) {
		t.Fatalf("sessions %v, want %v (remote's slot first)", sessions, want)
	}
	root := cp.Root
	if root.CheckpointsCount != 3 {
		t.Errorf("checkpoints_count %d, want 3", root.CheckpointsCount)
	}
	if want := []string{"a.go", "b.go", "both.go", "c.go"}; !reflect.DeepEqual(root.FilesTouched, want) {
		t.Errorf("files_touched %v, want %v", root.FilesTouched, want)
	}
	if len(root.Sessions) != 3 || root.Sessions[2].Metadata != "/a3/b2c4d5e6f7/2/metadata.json" || root.Sessions[2].Prompt != "/a3/b2c4d5e6f7/2/prompt.txt" {
		t.Errorf("sessions paths %+v", root.Sessions)
	}
	for i, s := range cp.Sessions {
		p, err := s.File(checkpoint.PromptFile)
		if err != nil || string(p) != "prompt of "+sessions[i] {
			t.Errorf("slot %d prompt %q, %v", i, p, err)
		}
	}
	if !checkpoint.NewStore(rb, nil).Exists("111111111111") {
		t.Error("remote-only checkpoint lost")
	}
	gittest.Fsck(t, bare)
}

// blobTree builds a tree from path -> content.
func blobTree(t *testing.T, repo *gitrepo.Repo, files map[string]string) plumbing.Hash {
	t.Helper()
	var changes []gitrepo.Change
	for p, c := range files {
		h, err := repo.WriteBlob([]byte(c))
		if err != nil {
			t.Fatal(err)
		}
		changes = append(changes, gitrepo.Change{Path: p, Mode: filemode.Regular, Hash: h})
	}
	h, err := repo.BuildTree(plumbing.ZeroHash, changes)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func treeFiles(t *testing.T, repo *gitrepo.Repo, h plumbing.Hash) map[string]string {
	t.Helper()
	tree, err := repo.Git.TreeObject(h)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	iter := tree.Files()
	defer iter.Close()
	for {
		f, err := iter.Next()
		if err != nil {
			break
		}
		c, err := f.Contents()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = c
	}
	return out
}

func TestMergeTrees(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		local, remote map[string]string
		checkpoints   bool
		want          map[string]string
	}{
		{
			name:   "disjoint union",
			local:  map[string]string{"a/x": "1", "same/f": "s"},
			remote: map[string]string{"b/y": "2", "same/f": "s"},
			want:   map[string]string{"a/x": "1", "b/y": "2", "same/f": "s"},
		},
		{
			name:   "remote wins on the same path",
			local:  map[string]string{"d/e/f": "local", "d/e/g": "only local"},
			remote: map[string]string{"d/e/f": "remote"},
			want:   map[string]string{"d/e/f": "remote", "d/e/g": "only local"},
		},
		{
			name:   "directory against file: remote wins",
			local:  map[string]string{"x/y": "dir"},
			remote: map[string]string{"x": "file"},
			want:   map[string]string{"x": "file"},
		},
		{
			name: "checkpoint with unreadable metadata falls back to union",
			local: map[string]string{
				"a3/b2c4d5e6f7/metadata.json": "{}", "a3/b2c4d5e6f7/0/metadata.json": `{"session_id":`, "a3/b2c4d5e6f7/0/full.jsonl.001": "l",
			},
			remote: map[string]string{
				"a3/b2c4d5e6f7/metadata.json": "{}", "a3/b2c4d5e6f7/0/metadata.json": `{"session_id":"r"}`,
			},
			checkpoints: true,
			want: map[string]string{
				"a3/b2c4d5e6f7/metadata.json": "{}", "a3/b2c4d5e6f7/0/metadata.json": `{"session_id":"r"}`, "a3/b2c4d5e6f7/0/full.jsonl.001": "l",
			},
		},
		{
			name: "same session on both sides: remote slot kept whole",
			local: map[string]string{
				"a3/b2c4d5e6f7/metadata.json": `{"sessions":[]}`, "a3/b2c4d5e6f7/0/metadata.json": `{"session_id":"s"}`,
				"a3/b2c4d5e6f7/0/full.jsonl.001": "local chunk", "a3/b2c4d5e6f7/tasks/t1/checkpoint.json": "lt",
			},
			remote: map[string]string{
				"a3/b2c4d5e6f7/metadata.json": `{"sessions":[{}]}`, "a3/b2c4d5e6f7/0/metadata.json": `{"session_id":"s","checkpoints_count":2}`,
				"a3/b2c4d5e6f7/tasks/t2/checkpoint.json": "rt",
			},
			checkpoints: true,
			want: map[string]string{
				"a3/b2c4d5e6f7/metadata.json": `{"sessions":[{}]}`, "a3/b2c4d5e6f7/0/metadata.json": `{"session_id":"s","checkpoints_count":2}`,
				"a3/b2c4d5e6f7/tasks/t1/checkpoint.json": "lt", "a3/b2c4d5e6f7/tasks/t2/checkpoint.json": "rt",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := openRepo(t, gittest.Init(t))
			got, err := MergeTrees(repo, blobTree(t, repo, tt.local), blobTree(t, repo, tt.remote), MergeOptions{Checkpoints: tt.checkpoints})
			if err != nil {
				t.Fatal(err)
			}
			if files := treeFiles(t, repo, got); !reflect.DeepEqual(files, tt.want) {
				t.Fatalf("merged %v\nwant   %v", files, tt.want)
			}
		})
	}
}
