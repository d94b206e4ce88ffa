//go:build torture

// The longest scenarios of this package run in the torture tier, which CI
// runs too: go test ./... keeps within its budget (docs/testing.md).

package commands

import (
	"fmt"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// The Commits section of a checkpoint finds its commit among everything
// `git log HEAD` walks: on a main line of merge commits, a commit reachable
// only through a merge's second parent.
func TestExplainCommitsThroughMerges(t *testing.T) {
	t.Parallel()
	r, id := e2etest.CommittedSession(t)
	feature := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	gittest.Git(t, r.Dir, "checkout", "-q", "main")
	r.MustGit("merge", "-q", "--no-ff", "-m", "Merge feature", "feature")
	for i := range 3 {
		b := fmt.Sprintf("side%d", i)
		gittest.Git(t, r.Dir, "checkout", "-q", "-b", b, "main~0")
		gittest.WriteFile(t, r.Dir, b+".txt", b+"\n")
		r.MustGit("add", b+".txt")
		r.MustGit("commit", "-q", "-m", "work on "+b)
		gittest.Git(t, r.Dir, "checkout", "-q", "main")
		r.MustGit("merge", "-q", "--no-ff", "-m", "Merge "+b, b)
	}
	// The feature commit is not on HEAD's first-parent line.
	if fp := gittest.Git(t, r.Dir, "rev-list", "--first-parent", "HEAD"); strings.Contains(fp, feature) {
		t.Fatalf("feature commit on the first-parent line")
	}
	want := "  " + feature[:7] + " 2026-01-02 Add greeting and farewell\n"
	for _, args := range [][]string{{"--commit", feature}, {"-c", id}, {"-c", id, "--short"}} {
		out, errOut, code := r.Entire(append([]string{"explain", "--no-pager"}, args...)...)
		if code != 0 || !strings.Contains(out, "Commits: (") || !strings.Contains(out, want) {
			t.Errorf("explain %v: %d %s\n%s", args, code, errOut, out)
		}
	}
}
