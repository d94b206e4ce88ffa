package push

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

const metaRef = "refs/heads/" + checkpoint.MetadataBranch

func TestPrePushTargets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// remote is what git passes as $1: a name, or "<origin>" / "<fork>"
		// for the URL of that remote.
		remote, checkpointRemote string
		pushSessions             bool
		wantOrigin, wantFork     bool
	}{
		{name: "checkpoint remote by name", remote: "origin", pushSessions: true, wantOrigin: true},
		{name: "checkpoint remote by URL", remote: "<origin>", pushSessions: true, wantOrigin: true},
		{name: "explicit checkpoint remote", remote: "fork", checkpointRemote: "fork", pushSessions: true, wantFork: true},
		{name: "second remote by name", remote: "fork", pushSessions: true},
		{name: "second remote by URL", remote: "<fork>", pushSessions: true},
		{name: "origin pushed, checkpoint remote is fork", remote: "origin", checkpointRemote: "fork", pushSessions: true},
		{name: "push_sessions false", remote: "origin", pushSessions: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			work, origin := newClone(t)
			fork := newBare(t)
			gittest.Git(t, work, "remote", "add", "fork", fork)
			repo := openRepo(t, work)
			writeCheckpoint(t, repo, "a3b2c4d5e6f7", "s1", "a.go")
			gittest.Git(t, work, "branch", "entire/abc1234-def456", "main") // a shadow branch

			remote := strings.NewReplacer("<origin>", origin, "<fork>", fork).Replace(tt.remote)
			var log syncBuffer
			err := PrePush(context.Background(), repo, Options{
				Remote: remote, Destination: destOr(tt.checkpointRemote), PushSessions: tt.pushSessions,
				Log: &log, Env: testEnv(t),
			})
			if err != nil {
				t.Fatal(err)
			}
			want := localRef(t, repo, metaRef)
			for _, c := range []struct {
				dir  string
				want bool
			}{{origin, tt.wantOrigin}, {fork, tt.wantFork}} {
				got := remoteRef(t, c.dir, metaRef)
				if c.want && got != want {
					t.Errorf("%s: %s = %q, want %q\nlog:\n%s", c.dir, metaRef, got, want, log.String())
				}
				if !c.want && got != "" {
					t.Errorf("%s: %s was pushed (%s)", c.dir, metaRef, got)
				}
				if got := remoteRef(t, c.dir, "refs/heads/entire/abc1234-def456"); got != "" {
					t.Errorf("%s: shadow branch was pushed", c.dir)
				}
			}
			pushed := tt.wantOrigin || tt.wantFork
			if got := strings.Contains(log.String(), "[entire] Pushing session logs to "); got != pushed {
				t.Errorf("log %q: announces push = %v, want %v", log.String(), got, pushed)
			}
			if strings.Contains(log.String(), "could not push") {
				t.Errorf("unexpected warning: %s", log.String())
			}
		})
	}
}

func TestPrePushSkipsWhenUpToDate(t *testing.T) {
	t.Parallel()
	work, bare := newClone(t)
	repo := openRepo(t, work)
	ctx := context.Background()
	opts := Options{Destination: origin, Remote: "origin", PushSessions: true, Env: testEnv(t)}

	var log syncBuffer
	opts.Log = &log
	if err := PrePush(ctx, repo, opts); err != nil { // no metadata branch yet
		t.Fatal(err)
	}
	if log.String() != "" {
		t.Fatalf("no branch: log %q", log.String())
	}
	writeCheckpoint(t, repo, "a3b2c4d5e6f7", "s1")
	if err := PrePush(ctx, repo, opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "Pushing session logs to origin...") {
		t.Fatalf("log %q", log.String())
	}
	if got, want := localRef(t, repo, "refs/remotes/origin/"+checkpoint.MetadataBranch), localRef(t, repo, metaRef); got != want {
		t.Fatalf("tracking ref %s, want %s", got, want)
	}
	var log2 syncBuffer
	opts.Log = &log2
	if err := PrePush(ctx, repo, opts); err != nil {
		t.Fatal(err)
	}
	if log2.String() != "" {
		t.Fatalf("up to date: log %q", log2.String())
	}
	gittest.Fsck(t, bare)
}

func TestPrePushRejectsNonEntireBranches(t *testing.T) {
	t.Parallel()
	work, _ := newClone(t)
	repo := openRepo(t, work)
	for _, b := range []string{"entire/abc1234-def456", "main", "entire/checkpoints/v1/x", "entire//v1"} {
		err := PrePush(context.Background(), repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Branches: []string{b}})
		if !errors.Is(err, ErrBadBranch) {
			t.Errorf("branch %q: err = %v, want ErrBadBranch", b, err)
		}
		if err := FetchBranch(context.Background(), repo, origin, b, 0); !errors.Is(err, ErrBadBranch) {
			t.Errorf("FetchBranch %q: err = %v, want ErrBadBranch", b, err)
		}
	}
}

func TestPrePushSeveralBranches(t *testing.T) {
	t.Parallel()
	work, bare := newClone(t)
	repo := openRepo(t, work)
	writeCheckpoint(t, repo, "a3b2c4d5e6f7", "s1")
	gittest.Git(t, work, "branch", "entire/notes/v1", "main")
	gittest.Git(t, work, "branch", "entire/hides/v1", "main")

	// Only the listed branches go.
	err := PrePush(context.Background(), repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Env: testEnv(t),
		Branches: []string{checkpoint.MetadataBranch, "entire/notes/v1"}})
	if err != nil {
		t.Fatal(err)
	}
	if remoteRef(t, bare, metaRef) == "" || remoteRef(t, bare, "refs/heads/entire/notes/v1") == "" {
		t.Fatal("listed branches not pushed")
	}
	if remoteRef(t, bare, "refs/heads/entire/hides/v1") != "" {
		t.Fatal("unlisted branch pushed")
	}
	// Nil Branches: every local entire/<name>/v1 branch.
	if err := PrePush(context.Background(), repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Env: testEnv(t)}); err != nil {
		t.Fatal(err)
	}
	if remoteRef(t, bare, "refs/heads/entire/hides/v1") == "" {
		t.Fatal("entire/hides/v1 not pushed by default")
	}
}

func TestFetchBranch(t *testing.T) {
	t.Parallel()
	work, bare := newClone(t)
	repo := openRepo(t, work)
	writeCheckpoint(t, repo, "a3b2c4d5e6f7", "s1")
	if err := PrePush(context.Background(), repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Env: testEnv(t)}); err != nil {
		t.Fatal(err)
	}
	other := cloneOf(t, bare)
	gittest.Git(t, other, "update-ref", "-d", "refs/remotes/origin/"+checkpoint.MetadataBranch)
	orepo := openRepo(t, other)
	if err := FetchBranch(context.Background(), orepo, origin, checkpoint.MetadataBranch, 0); err != nil {
		t.Fatal(err)
	}
	if got, want := localRef(t, orepo, "refs/remotes/origin/"+checkpoint.MetadataBranch), localRef(t, repo, metaRef); got != want {
		t.Fatalf("fetched %q, want %q", got, want)
	}
	if err := FetchBranch(context.Background(), orepo, origin, "entire/none/v1", 0); err == nil {
		t.Fatal("fetching a missing branch succeeded")
	}
}

func TestParsePorcelain(t *testing.T) {
	t.Parallel()
	out := "To /tmp/x.git\n" +
		"!\trefs/heads/a:refs/heads/a\t[rejected] (fetch first)\n" +
		"*\trefs/heads/b:refs/heads/b\t[new branch]\n" +
		"=\trefs/heads/c:refs/heads/c\t[up to date]\n" +
		"!\trefs/heads/d:refs/heads/d\t[remote rejected] (hook declined)\n" +
		"Done\n"
	got := parsePorcelain([]byte(out))
	want := map[string]pushResult{
		"refs/heads/a": {'!', "[rejected] (fetch first)"},
		"refs/heads/b": {'*', "[new branch]"},
		"refs/heads/c": {'=', "[up to date]"},
		"refs/heads/d": {'!', "[remote rejected] (hook declined)"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %+v, want %+v", k, got[k], v)
		}
	}
}

func TestPrePushSetsTrackingRefOfSingleBranchClone(t *testing.T) {
	t.Parallel()
	_, bare := newClone(t)
	work := cloneOf(t, bare)
	gittest.Git(t, work, "config", "remote.origin.fetch", "+refs/heads/main:refs/remotes/origin/main")
	repo := openRepo(t, work)
	writeCheckpoint(t, repo, "a3b2c4d5e6f7", "s1")
	opts := Options{Destination: origin, Remote: "origin", PushSessions: true, Env: testEnv(t)}
	if err := PrePush(context.Background(), repo, opts); err != nil {
		t.Fatal(err)
	}
	want := localRef(t, repo, metaRef)
	if got := localRef(t, repo, "refs/remotes/origin/"+checkpoint.MetadataBranch); got != want {
		t.Fatalf("tracking ref %q, want %q", got, want)
	}
	var log syncBuffer
	opts.Log = &log
	if err := PrePush(context.Background(), repo, opts); err != nil {
		t.Fatal(err)
	}
	if log.String() != "" {
		t.Fatalf("second push not skipped: %q", log.String())
	}
}

func TestPrePushFailuresAreWarnings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, work, bare string)
		want  string
	}{
		{
			name: "missing remote repository",
			setup: func(t *testing.T, work, bare string) {
				gittest.Git(t, work, "remote", "set-url", "origin", bare+"-gone")
			},
			// (The URL changed: the remote is asked what it has first.)
			want: "ask origin for its session data branches: git ls-remote: fatal: ",
		},
		{
			name: "remote hook declines",
			setup: func(t *testing.T, work, bare string) {
				gittest.WriteFile(t, bare, "hooks/pre-receive", "#!/bin/sh\nexit 1\n")
				if err := os.Chmod(filepath.Join(bare, "hooks", "pre-receive"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			want: "entire/checkpoints/v1 rejected: [remote rejected] (pre-receive hook declined)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			work, bare := newClone(t)
			repo := openRepo(t, work)
			writeCheckpoint(t, repo, "a3b2c4d5e6f7", "s1")
			tt.setup(t, work, bare)
			var log syncBuffer
			if err := PrePush(context.Background(), repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Log: &log, Env: testEnv(t)}); err != nil {
				t.Fatalf("PrePush returned %v; failures must be warnings", err)
			}
			if want := "[entire] could not push session logs to origin: " + tt.want; !strings.Contains(log.String(), want) {
				t.Fatalf("log %q\nwant it to contain %q", log.String(), want)
			}
		})
	}
}

func TestIsCheckpointRemote(t *testing.T) {
	t.Parallel()
	dir := gittest.Init(t)
	gittest.Git(t, dir, "remote", "add", "origin", "https://example.com/org/repo.git")
	gittest.Git(t, dir, "config", "remote.origin.pushurl", "git@example.com:org/repo.git")
	gittest.Git(t, dir, "remote", "add", "fork", "https://example.com/me/repo.git")
	repo := openRepo(t, dir)
	tests := []struct {
		pushed, cp string
		want       bool
	}{
		{"origin", "origin", true},
		{"https://example.com/org/repo.git", "origin", true},
		{"https://example.com/org/repo", "origin", true},
		{"https://example.com/org/repo/", "origin", true},
		{"git@example.com:org/repo.git", "origin", true},
		{"fork", "origin", false},
		{"https://example.com/me/repo.git", "origin", false},
		{"https://example.com/org/other.git", "origin", false},
		{"", "origin", false},
		{"origin", "fork", false},
		{"https://example.com/me/repo.git", "fork", true},
		{"nowhere", "nowhere", true},
	}
	for _, tt := range tests {
		if got := isCheckpointRemote(repo, tt.pushed, tt.cp); got != tt.want {
			t.Errorf("isCheckpointRemote(%q, %q) = %v, want %v", tt.pushed, tt.cp, got, tt.want)
		}
	}
}
