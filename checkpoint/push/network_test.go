//go:build unix

package push

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/proc"
)

func TestPrePushThroughGitDaemon(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	bare := filepath.Join(base, "repo.git")
	gittest.Git(t, base, "init", "-q", "--bare", "-b", "main", bare)
	fork := filepath.Join(base, "fork.git")
	gittest.Git(t, base, "init", "-q", "--bare", "-b", "main", fork)
	url := gittest.Daemon(t, base)

	work := gittest.InitWithCommit(t)
	gittest.Git(t, work, "remote", "add", "origin", url+"/repo.git")
	gittest.Git(t, work, "remote", "add", "fork", url+"/fork.git")
	gittest.Git(t, work, "push", "-q", "origin", "main")
	repo := openRepo(t, work)
	writeCheckpoint(t, repo, "a3b2c4d5e6f7", "s1")
	gittest.Git(t, work, "branch", "entire/abc1234-def456", "main")
	ctx := context.Background()

	var log syncBuffer
	if err := PrePush(ctx, repo, Options{Destination: origin, Remote: "fork", PushSessions: true, Log: &log, Timeout: 10 * time.Second, Env: testEnv(t)}); err != nil {
		t.Fatal(err)
	}
	if got := remoteRef(t, fork, metaRef); got != "" || log.String() != "" {
		t.Fatalf("second remote got %q, log %q", got, log.String())
	}
	if err := PrePush(ctx, repo, Options{Destination: origin, Remote: url + "/repo.git", PushSessions: true, Log: &log, Timeout: 10 * time.Second, Env: testEnv(t)}); err != nil {
		t.Fatal(err)
	}
	if got, want := remoteRef(t, bare, metaRef), localRef(t, repo, metaRef); got != want {
		t.Fatalf("origin has %q, want %q\nlog:\n%s", got, want, log.String())
	}
	if remoteRef(t, bare, "refs/heads/entire/abc1234-def456") != "" {
		t.Fatal("shadow branch pushed")
	}

	// Another clone moves the remote; the next push merges.
	other := cloneOf(t, bare)
	gittest.Git(t, other, "remote", "set-url", "origin", url+"/repo.git")
	oRepo := openRepo(t, other)
	writeCheckpoint(t, oRepo, "111111111111", "s2")
	if err := PrePush(ctx, oRepo, Options{Destination: origin, Remote: "origin", PushSessions: true, Timeout: 10 * time.Second, Env: testEnv(t)}); err != nil {
		t.Fatal(err)
	}
	writeCheckpoint(t, repo, "222222222222", "s3")
	log = syncBuffer{}
	if err := PrePush(ctx, repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Log: &log, Timeout: 10 * time.Second, Env: testEnv(t)}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "could not push") {
		t.Fatalf("warning: %s", log.String())
	}
	ids, err := checkpoint.NewStore(repo, nil).List()
	if err != nil || len(ids) != 3 {
		t.Fatalf("checkpoints after merge %v, %v", ids, err)
	}
	if got, want := remoteRef(t, bare, metaRef), localRef(t, repo, metaRef); got != want {
		t.Fatalf("merge not pushed: origin %q, local %q\nlog:\n%s", got, want, log.String())
	}
	gittest.Fsck(t, bare)
}

// silentRemote accepts TCP connections on 127.0.0.1 and never answers. It
// returns the git:// URL of a repository on it.
func silentRemote(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns <- c
		}
	}()
	t.Cleanup(func() {
		l.Close()
		for {
			select {
			case c := <-conns:
				c.Close()
			default:
				return
			}
		}
	})
	return "git://" + l.Addr().String() + "/x"
}

func TestUnresponsiveRemoteDoesNotHang(t *testing.T) {
	t.Parallel()
	const bound = 2 * time.Second
	work := gittest.InitWithCommit(t)
	gittest.Git(t, work, "remote", "add", "origin", silentRemote(t))
	repo := openRepo(t, work)
	writeCheckpoint(t, repo, "a3b2c4d5e6f7", "s1")
	ctx := context.Background()

	var log syncBuffer
	start := time.Now()
	err := PrePush(ctx, repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Log: &log, Timeout: bound, Env: testEnv(t)})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed >= 5*time.Second || elapsed < bound-100*time.Millisecond {
		t.Fatalf("PrePush took %s with a %s bound", elapsed, bound)
	}
	if !strings.Contains(log.String(), "[entire] could not push session logs to origin: ") || !strings.Contains(log.String(), "timed out") {
		t.Fatalf("log %q", log.String())
	}

	start = time.Now()
	err = FetchBranch(ctx, repo, origin, checkpoint.MetadataBranch, bound)
	if elapsed := time.Since(start); elapsed >= 5*time.Second {
		t.Fatalf("FetchBranch took %s", elapsed)
	}
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("FetchBranch err = %v, want ErrTimeout", err)
	}

	// The caller's context bounds it too.
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start = time.Now()
	err = FetchBranch(cctx, repo, origin, checkpoint.MetadataBranch, time.Minute)
	if elapsed := time.Since(start); elapsed >= 2*time.Second || err == nil {
		t.Fatalf("FetchBranch with a cancelled context: %s, %v", elapsed, err)
	}
}

func TestStuckTransportChildIsKilled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := filepath.Join(dir, "fake-ssh")
	body := "#!/bin/sh\necho $$ > '" + pidFile + "'\nexec sleep 60\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	work := gittest.InitWithCommit(t)
	gittest.Git(t, work, "remote", "add", "origin", "ssh://git@example.invalid/x.git")
	repo := openRepo(t, work)
	writeCheckpoint(t, repo, "a3b2c4d5e6f7", "s1")

	var log syncBuffer
	start := time.Now()
	env := append(testEnv(t), "GIT_SSH="+script, "GIT_SSH_VARIANT=simple")
	if err := PrePush(context.Background(), repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Log: &log, Timeout: time.Second, Env: env}); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed >= 4*time.Second {
		t.Fatalf("PrePush took %s with a 1s bound", elapsed)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("fake ssh never ran: %v (log %q)", err, log.String())
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if !proc.AwaitExit(pid, 2*time.Second) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("transport child %d survived the timeout", pid)
	}
}

// In the hook, a remote that does not answer within its time leaves the
// push to the background push that waits for the user's branch to land
// (ErrDeferred) when the push brings one, and is a warning when it brings
// none.
func TestHookHandsOverWhenTheRemoteIsSlow(t *testing.T) {
	t.Parallel()
	work := gittest.InitWithCommit(t)
	gittest.Git(t, work, "remote", "add", "origin", silentRemote(t))
	repo := openRepo(t, work)
	writeCheckpoint(t, repo, "a3b2c4d5e6f7", "s1")
	head := gittest.Git(t, work, "rev-parse", "HEAD")
	zero := strings.Repeat("0", 40)
	for _, tc := range []struct {
		refs string
		want error
	}{
		{"refs/heads/main " + head + " refs/heads/main " + zero + "\n", ErrDeferred},
		{"refs/tags/v1 " + head + " refs/tags/v1 " + zero + "\n", nil},
	} {
		var log syncBuffer
		start := time.Now()
		err := PrePush(context.Background(), repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Log: &log,
			SyncLimit: 300 * time.Millisecond, Refs: []byte(tc.refs), Env: testEnv(t)})
		if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
			t.Errorf("refs %q: err %v, want %v (log %q)", tc.refs, err, tc.want, log.String())
		}
		if elapsed := time.Since(start); elapsed >= 3*time.Second {
			t.Errorf("PrePush took %s with a 300ms limit", elapsed)
		}
		if tc.want == nil && !strings.Contains(log.String(), "timed out") {
			t.Errorf("no warning: %q", log.String())
		}
	}
}
