//go:build unix && torture

package torture

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
)

// teamRemote creates a bare repository holding the main branch of a
// repository set up for entire, under a new directory served by git
// daemon. It returns the bare repository's path and its git:// URL.
func teamRemote(t *testing.T, layout string) (bare, url string) {
	t.Helper()
	seed := e2etest.NewSessionRepo(t)
	seed.UseLayout(layout)
	base := t.TempDir()
	bare = filepath.Join(base, "team.git")
	gittest.Git(t, base, "init", "-q", "--bare", "-b", "main", bare)
	gittest.Git(t, seed.Dir, "push", "-q", bare, "main") // without hooks
	return bare, gittest.Daemon(t, base) + "/team.git"
}

// Eight developers, four cloned over file:// and four over git daemon, each
// run an agent session, commit and push their own branch at the same time:
// no push fails or takes 30 s, and every Entire-Checkpoint trailer on the
// remote names a checkpoint on the remote: on its metadata branch, or (in
// the git-refs layout) as its own ref.
func TestTeamPushesConverge(t *testing.T) {
	t.Parallel()
	for _, layout := range []string{settings.CheckpointsGitBranch, settings.CheckpointsGitRefs} {
		t.Run(layout, func(t *testing.T) {
			t.Parallel()
			teamPushesConverge(t, layout)
		})
	}
}

func teamPushesConverge(t *testing.T, layout string) {
	bare, url := teamRemote(t, layout)
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
				r := e2etest.CloneSessionRepo(t, from, fmt.Sprintf("dev%d-sess", n))
				branch := fmt.Sprintf("dev%d", n)
				r.MustGit("checkout", "-q", "-b", branch)
				for round := range rounds {
					file := fmt.Sprintf("dev%d/round%d.txt", n, round)
					r.AgentTurn(fmt.Sprintf("developer %d, round %d", n, round), map[string]string{file: "work\n"})
					r.MustGit("add", file)
					r.MustGit("commit", "-q", "-m", fmt.Sprintf("dev %d round %d", n, round))
					if e2etest.CheckpointAt(t, r.Dir, "HEAD") == "" {
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
	tree, _ := gittest.GitErr(bare, "ls-tree", "-r", "--name-only", "entire/checkpoints/v1")
	for _, p := range strings.Split(tree, "\n") {
		if f := strings.Split(p, "/"); len(f) == 3 && f[2] == "metadata.json" {
			meta[f[0]+f[1]] = true
		}
	}
	linked := 0
	for n := range clones {
		log := gittest.Git(t, bare, "log", "--format=%B", fmt.Sprintf("dev%d", n), "--not", "main")
		for _, m := range e2etest.TrailerRe.FindAllStringSubmatch(log, -1) {
			linked++
			if !meta[m[1]] && !e2etest.HasCheckpoint(t, bare, m[1]) {
				t.Errorf("dev%d: trailer %s names no checkpoint on the remote", n, m[1])
			}
		}
	}
	if linked != clones*rounds {
		t.Errorf("%d linked commits on the remote, want %d", linked, clones*rounds)
	}
	if layout == settings.CheckpointsGitRefs {
		if len(meta) > 0 {
			t.Errorf("the git-refs layout wrote %d checkpoint(s) to the metadata branch", len(meta))
		}
		if refs := gittest.Git(t, bare, "for-each-ref", "--format=%(refname)", "refs/entire/checkpoints/"); len(strings.Fields(refs)) != clones*rounds {
			t.Errorf("checkpoint refs on the remote:\n%s\nwant %d", refs, clones*rounds)
		}
	}
	gittest.Fsck(t, bare)
}
