//go:build unix

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// teamRemote creates a bare repository holding the main branch of a
// repository set up for entire, under a new directory served by git
// daemon. It returns the bare repository's path and its git:// URL.
func teamRemote(t *testing.T) (bare, url string) {
	t.Helper()
	seed := NewSessionRepo(t)
	base := t.TempDir()
	bare = filepath.Join(base, "team.git")
	gittest.Git(t, base, "init", "-q", "--bare", "-b", "main", bare)
	gittest.Git(t, seed.Dir, "push", "-q", bare, "main") // without hooks
	return bare, gittest.Daemon(t, base) + "/team.git"
}

// Eight developers, four cloned over file:// and four over git daemon, each
// run an agent session, commit and push their own branch at the same time:
// no push fails or takes 30 s, and every Entire-Checkpoint trailer on the
// remote names a checkpoint on its metadata branch.
func TestTeamPushesConverge(t *testing.T) {
	t.Parallel()
	bare, url := teamRemote(t)
	const clones, rounds = 8, 1
	var mu sync.Mutex
	var slowest time.Duration
	t.Run("developers", func(t *testing.T) {
		for n := range clones {
			t.Run(fmt.Sprint(n), func(t *testing.T) {
				t.Parallel()
				from := bare
				if n%2 == 1 {
					from = url
				}
				r := CloneSessionRepo(t, from, fmt.Sprintf("dev%d-sess", n))
				branch := fmt.Sprintf("dev%d", n)
				r.MustGit("checkout", "-q", "-b", branch)
				for round := range rounds {
					file := fmt.Sprintf("dev%d/round%d.txt", n, round)
					r.AgentTurn(fmt.Sprintf("developer %d, round %d", n, round), map[string]string{file: "work\n"})
					r.MustGit("add", file)
					r.MustGit("commit", "-q", "-m", fmt.Sprintf("dev %d round %d", n, round))
					if CheckpointAt(t, r.Dir, "HEAD") == "" {
						t.Fatalf("round %d: the commit is not linked", round)
					}
					start := time.Now()
					out, err := r.GitIn(r.Dir, nil, "push", "-q", "origin", branch)
					took := time.Since(start)
					if err != nil {
						t.Fatalf("round %d: git push: %v\n%s", round, err, out)
					}
					if took > 30*time.Second {
						t.Errorf("round %d: the push took %s", round, took)
					}
					if strings.Contains(out, "could not push") || strings.Contains(out, "not yet on") {
						t.Errorf("round %d: push output:\n%s", round, out)
					}
					mu.Lock()
					slowest = max(slowest, took)
					mu.Unlock()
				}
			})
		}
	})
	t.Logf("%d pushes, the slowest %s", clones*rounds, slowest)
	meta := map[string]bool{}
	for _, p := range strings.Split(gittest.Git(t, bare, "ls-tree", "-r", "--name-only", "entire/checkpoints/v1"), "\n") {
		if f := strings.Split(p, "/"); len(f) == 3 && f[2] == "metadata.json" {
			meta[f[0]+f[1]] = true
		}
	}
	linked := 0
	for n := range clones {
		log := gittest.Git(t, bare, "log", "--format=%B", fmt.Sprintf("dev%d", n), "--not", "main")
		for _, m := range TrailerRe.FindAllStringSubmatch(log, -1) {
			linked++
			if !meta[m[1]] {
				t.Errorf("dev%d: trailer %s names no checkpoint on the remote", n, m[1])
			}
		}
	}
	if linked != clones*rounds {
		t.Errorf("%d linked commits on the remote, want %d", linked, clones*rounds)
	}
	gittest.Fsck(t, bare)
}

// A metadata push the remote refuses does not stop the user's: git push
// succeeds, its output and `entire status` name the checkpoint not yet on
// the remote, and the next push, once the remote takes it, sends it.
func TestPushThatCannotLandNamesCheckpoints(t *testing.T) {
	t.Parallel()
	r := NewSessionRepo(t)
	origin := filepath.Join(t.TempDir(), "origin.git")
	gittest.Git(t, filepath.Dir(origin), "init", "-q", "--bare", "-b", "main", origin)
	gittest.Git(t, r.Dir, "push", "-q", origin, "main") // without hooks: the remote has the user's branch
	gittest.Git(t, r.Dir, "remote", "add", "origin", origin)
	gittest.Git(t, r.Dir, "fetch", "-q", "origin")
	decline := filepath.Join(origin, "hooks", "update")
	hook := "#!/bin/sh\ncase \"$1\" in refs/heads/entire/*) echo 'session data refused here' >&2; exit 1;; esac\n"
	if err := os.WriteFile(decline, []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	r.AgentTurn("Add a", map[string]string{"a.txt": "a\n"})
	r.MustGit("add", "a.txt")
	r.MustGit("commit", "-q", "-m", "Add a")
	first := CheckpointAt(t, r.Dir, "HEAD")
	out := r.MustGit("push", "origin", "main")
	want := "1 checkpoint(s) not yet on origin: " + first + "; the next push sends them"
	if !strings.Contains(out, want) {
		t.Errorf("push output lacks %q:\n%s", want, out)
	}
	if got, head := gittest.Git(t, origin, "rev-parse", "main"), gittest.Git(t, r.Dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("the user's push did not land: remote main %s, HEAD %s", got, head)
	}
	if HasCheckpoint(t, origin, first) {
		t.Fatal("the remote holds the checkpoint its hook refused")
	}
	status, _, code := r.Entire("status")
	if code != 0 || !strings.Contains(status, want) {
		t.Errorf("entire status (exit %d) lacks %q:\n%s", code, want, status)
	}

	if err := os.Remove(decline); err != nil {
		t.Fatal(err)
	}
	r.AgentTurn("Add b", map[string]string{"b.txt": "b\n"})
	r.MustGit("add", "b.txt")
	r.MustGit("commit", "-q", "-m", "Add b")
	second := CheckpointAt(t, r.Dir, "HEAD")
	if out := r.MustGit("push", "origin", "main"); strings.Contains(out, "not yet on") || strings.Contains(out, "could not push") {
		t.Errorf("second push:\n%s", out)
	}
	for _, id := range []string{first, second} {
		if !HasCheckpoint(t, origin, id) {
			t.Errorf("checkpoint %s is not on the remote after the next push", id)
		}
	}
	if status, _, _ := r.Entire("status"); strings.Contains(status, "not yet on") {
		t.Errorf("entire status after the push:\n%s", status)
	}
}

// The first push to an empty remote sends the user's branch first: a forge
// would make the first branch pushed its default. The session logs follow
// once it landed, from a background push.
func TestFirstPushSendsTheUsersBranchFirst(t *testing.T) {
	t.Parallel()
	r := NewSessionRepo(t)
	r.AgentTurn("Add a file", map[string]string{"a.txt": "a\n"})
	r.MustGit("add", "a.txt")
	r.MustGit("commit", "-q", "-m", "Add a")
	id := CheckpointAt(t, r.Dir, "HEAD")
	origin := filepath.Join(t.TempDir(), "origin.git")
	gittest.Git(t, filepath.Dir(origin), "init", "-q", "--bare", "-b", "trunk", origin)
	order := filepath.Join(t.TempDir(), "order")
	hook := "#!/bin/sh\necho \"$1\" >> '" + order + "'\n"
	if err := os.WriteFile(filepath.Join(origin, "hooks", "update"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, r.Dir, "remote", "add", "origin", origin)
	out := r.MustGit("push", "-u", "origin", "main")
	if !strings.Contains(out, "once this push has landed") {
		t.Errorf("push output:\n%s", out)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !HasCheckpoint(t, origin, id) {
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(order)
			t.Fatalf("the session logs never followed; refs received:\n%s\nlog:\n%s", data, LogText(r.Dir))
		}
		time.Sleep(100 * time.Millisecond)
	}
	data, err := os.ReadFile(order)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(data)); len(got) != 2 || got[0] != "refs/heads/main" || got[1] != "refs/heads/entire/checkpoints/v1" {
		t.Errorf("refs arrived in this order: %q", got)
	}
	// Nothing may write into the test's directories once it ends.
	AwaitPushAfter(t, r.Dir)
	// The next push has nothing to wait for: the remote has a branch.
	r.AgentTurn("Add b", map[string]string{"b.txt": "b\n"})
	r.MustGit("add", "b.txt")
	r.MustGit("commit", "-q", "-m", "Add b")
	second := CheckpointAt(t, r.Dir, "HEAD")
	r.MustGit("push", "-q", "origin", "main")
	if !HasCheckpoint(t, origin, second) {
		t.Errorf("the second push did not send checkpoint %s", second)
	}
}
