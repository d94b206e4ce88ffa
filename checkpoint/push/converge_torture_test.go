//go:build unix && torture

package push

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// Four clones, half over file:// and half over git daemon, push their
// checkpoints to one remote at once, two rounds each: every push returns
// within the budget, and the remote's metadata branch ends with every
// checkpoint. (The eight clones of the issue run end to end, with their
// sessions and commits, in cmd/entire/e2e/torture's TestTeamPushesConverge.)
func TestConcurrentPushesConverge(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	bare := filepath.Join(base, "team.git")
	gittest.Git(t, base, "init", "-q", "--bare", "-b", "main", bare)
	url := gittest.Daemon(t, base)
	seed := gittest.InitWithCommit(t)
	gittest.Git(t, seed, "push", "-q", bare, "main")

	const clones, rounds = 4, 2
	repos := make([]string, clones)
	for i := range repos {
		repos[i] = cloneOf(t, bare)
		if i%2 == 1 {
			gittest.Git(t, repos[i], "remote", "set-url", "origin", url+"/team.git")
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var want []string
	var slowest time.Duration
	for i, dir := range repos {
		wg.Add(1)
		go func() {
			defer wg.Done()
			repo := openRepo(t, dir)
			for round := range rounds {
				id := checkpoint.ID(fmt.Sprintf("%02x%010x", i*16+round, i*1000+round))
				writeCheckpoint(t, repo, id, fmt.Sprintf("s%d-%d", i, round))
				mu.Lock()
				want = append(want, string(id))
				mu.Unlock()
				var log syncBuffer
				start := time.Now()
				if err := PrePush(context.Background(), repo, Options{Destination: origin, Remote: "origin", PushSessions: true, Log: &log, Env: testEnv(t)}); err != nil {
					t.Errorf("clone %d round %d: %v", i, round, err)
				}
				took := time.Since(start)
				if took > DefaultBudget+5*time.Second {
					t.Errorf("clone %d round %d: the push took %s", i, round, took)
				}
				mu.Lock()
				slowest = max(slowest, took)
				mu.Unlock()
				if strings.Contains(log.String(), "could not push") {
					t.Errorf("clone %d round %d: %s", i, round, log.String())
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d pushes, the slowest %s", clones*rounds, slowest)
	have := remoteCheckpoints(t, bare)
	slices.Sort(want)
	slices.Sort(have)
	if !slices.Equal(have, want) {
		t.Fatalf("remote holds %d checkpoints, %d pushed\nmissing: %v", len(have), len(want), missing(want, have))
	}
	gittest.Fsck(t, bare)
}
