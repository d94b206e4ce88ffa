//go:build unix

package push

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// remoteCheckpoints lists the checkpoints on the metadata branch of the
// (bare) repository at dir.
func remoteCheckpoints(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, p := range strings.Split(gittest.Git(t, dir, "ls-tree", "-r", "--name-only", metaRef), "\n") {
		if f := strings.Split(p, "/"); len(f) == 3 && f[2] == checkpoint.MetadataFile {
			out = append(out, f[0]+f[1])
		}
	}
	return out
}

func missing(want, have []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}

// Unpushed names the checkpoints the remote-tracking metadata branch lacks,
// or holds in an older version.
func TestUnpushed(t *testing.T) {
	t.Parallel()
	work, _ := newClone(t)
	repo := openRepo(t, work)
	writeCheckpoint(t, repo, "a3b2c4d5e6f7", "s1")
	writeCheckpoint(t, repo, "a3ffffffffff", "s1")
	ids, err := Unpushed(repo, origin)
	if err != nil || !slices.Equal(ids, []checkpoint.ID{"a3b2c4d5e6f7", "a3ffffffffff"}) {
		t.Fatalf("before any push: %v, %v", ids, err)
	}
	if err := PrePush(context.Background(), repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Env: testEnv(t)}); err != nil {
		t.Fatal(err)
	}
	if ids, err := Unpushed(repo, origin); err != nil || len(ids) != 0 {
		t.Fatalf("after the push: %v, %v", ids, err)
	}
	writeCheckpoint(t, repo, "a3b2c4d5e6f7", "s2") // a session added
	writeCheckpoint(t, repo, "0123456789ab", "s3")
	ids, err = Unpushed(repo, origin)
	if err != nil || !slices.Equal(ids, []checkpoint.ID{"0123456789ab", "a3b2c4d5e6f7"}) {
		t.Fatalf("after two new sessions: %v, %v", ids, err)
	}
	line := DescribeUnpushed(ids, "origin")
	if !strings.HasPrefix(line, "2 checkpoint(s) not yet on origin: 0123456789ab, a3b2c4d5e6f7;") {
		t.Errorf("line %q", line)
	}
}

// On a remote without a branch of the user's, the session logs wait: a push
// bringing the user's first branch gets ErrDeferred and nothing lands; one
// bringing no branch pushes nothing; once the branch landed they go.
func TestPrePushWaitsForTheUsersFirstBranch(t *testing.T) {
	t.Parallel()
	bare := newBare(t)
	work := gittest.InitWithCommit(t)
	gittest.Git(t, work, "remote", "add", "origin", bare)
	repo := openRepo(t, work)
	writeCheckpoint(t, repo, "a3b2c4d5e6f7", "s1")
	head := gittest.Git(t, work, "rev-parse", "HEAD")
	refs := []byte("refs/heads/main " + head + " refs/heads/main " + zeroSHA + "\n")
	ctx := context.Background()
	var log syncBuffer
	err := PrePush(ctx, repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Refs: refs, Log: &log, Env: testEnv(t)})
	if !errors.Is(err, ErrDeferred) {
		t.Fatalf("first push: %v, log %q", err, log.String())
	}
	if got := remoteRef(t, bare, metaRef); got != "" {
		t.Fatal("the metadata branch went first")
	}
	tags := []byte("refs/tags/v1 " + head + " refs/tags/v1 " + zeroSHA + "\n")
	if err := PrePush(ctx, repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Refs: tags, Log: &log, Env: testEnv(t)}); err != nil {
		t.Fatal(err)
	}
	if remoteRef(t, bare, metaRef) != "" || !strings.Contains(log.String(), "wait until origin has a branch of yours") {
		t.Fatalf("a push of tags alone: log %q", log.String())
	}

	landed := []LandedRef{{Ref: "refs/heads/main", SHA: head}}
	if err := WaitLanded(ctx, repo, "origin", landed, 300*time.Millisecond, testEnv(t)); err == nil {
		t.Fatal("WaitLanded before the push landed")
	}
	gittest.Git(t, work, "push", "-q", "origin", "main")
	if err := WaitLanded(ctx, repo, "origin", landed, 5*time.Second, testEnv(t)); err != nil {
		t.Fatal(err)
	}
	// The next push (the remote has main now) sends them.
	if err := PrePush(ctx, repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Refs: refs, Env: testEnv(t)}); err != nil {
		t.Fatal(err)
	}
	if got, want := remoteRef(t, bare, metaRef), localRef(t, repo, metaRef); got != want {
		t.Fatalf("remote metadata %q, local %q", got, want)
	}
}

// busyRemoteHook is a proc-receive hook (git's protocol for a remote that
// handles some refs itself) that answers every update of the refs it is
// given as another push holding the ref would: "failed to update ref". It
// counts the updates it refused, a line each, in the file named by $1.
const busyRemoteHook = `#!/usr/bin/perl
use strict;
$| = 1;
sub pkt { my ($len, $d); read(STDIN, $len, 4) == 4 or return undef; $len = hex($len); return "" if $len == 0; read(STDIN, $d, $len - 4); $d =~ s/\n$//; return $d; }
sub put { my $s = shift() . "\n"; printf "%04x%s", length($s) + 4, $s; }
while (defined(my $l = pkt())) { last if $l eq ""; }
put("version=1"); print "0000";
my @refs;
while (defined(my $l = pkt())) { last if $l eq ""; push @refs, (split / /, $l)[2]; }
open(my $log, ">>", "COUNT") or die;
for my $r (@refs) { put("ng $r failed to update ref"); print $log "$r\n"; }
print "0000";
`

// A metadata push the remote keeps refusing as busy is retried until the
// budget is spent, no longer: then PrePush returns (the user's push goes
// on) and its last line names the checkpoints the remote lacks. Whether
// the remote has the branch already or not (two clones creating it at
// once can both be refused).
func TestPrePushOutOfBudgetNamesCheckpoints(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("perl not found (the remote's proc-receive hook is a perl script)")
	}
	for _, onRemote := range []bool{false, true} {
		t.Run(fmt.Sprintf("on the remote already: %v", onRemote), func(t *testing.T) {
			t.Parallel()
			work, bare := newClone(t)
			repo := openRepo(t, work)
			var pushed string
			if onRemote {
				writeCheckpoint(t, repo, "fedcba987654", "s0")
				if err := PrePush(context.Background(), repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Env: testEnv(t)}); err != nil {
					t.Fatal(err)
				}
				if pushed = remoteRef(t, bare, metaRef); pushed == "" {
					t.Fatal("setup: the first push did not land")
				}
			}
			count := filepath.Join(t.TempDir(), "refused")
			hook := strings.Replace(busyRemoteHook, `"COUNT"`, strconv.Quote(count), 1)
			gittest.WriteFile(t, bare, "hooks/proc-receive", hook)
			if err := os.Chmod(filepath.Join(bare, "hooks", "proc-receive"), 0o755); err != nil {
				t.Fatal(err)
			}
			gittest.Git(t, bare, "config", "receive.procReceiveRefs", metaRef)
			writeCheckpoint(t, repo, "a3b2c4d5e6f7", "s1")
			writeCheckpoint(t, repo, "0123456789ab", "s2")
			// Long enough for a few attempts on a loaded machine.
			const budget = 5 * time.Second
			var log syncBuffer
			start := time.Now()
			if err := PrePush(context.Background(), repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Log: &log, Env: testEnv(t), Budget: budget}); err != nil {
				t.Fatalf("PrePush returned %v; a push that cannot land is a warning", err)
			}
			if took := time.Since(start); took > budget+2*time.Second {
				t.Errorf("PrePush took %s with a budget of %s", took, budget)
			}
			data, err := os.ReadFile(count)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(data), "\n"); n < 2 {
				t.Errorf("the remote refused %d push(es); a busy remote is worth retrying", n)
			}
			// The last attempt ends as the budget does: refused, or cut
			// off by the deadline.
			if want := "[entire] 2 checkpoint(s) not yet on origin: 0123456789ab, a3b2c4d5e6f7; the next push sends them\n"; !strings.HasSuffix(log.String(), want) {
				t.Errorf("log %q\ndoes not end with %q", log.String(), want)
			}
			if got := remoteRef(t, bare, metaRef); got != pushed {
				t.Errorf("the remote's metadata branch moved: %q, was %q", got, pushed)
			}
		})
	}
}
