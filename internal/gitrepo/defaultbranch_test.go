package gitrepo

import (
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// The default branch is origin's HEAD, else a local main or master.
func TestDefaultBranch(t *testing.T) {
	t.Parallel()
	empty := gittest.Init(t)
	if got := openTest(t, empty).DefaultBranch(); got != "" {
		t.Errorf("no commits: %q", got)
	}
	dir := gittest.InitWithCommit(t)
	if got := openTest(t, dir).DefaultBranch(); got != "main" {
		t.Errorf("local main: %q", got)
	}
	gittest.Git(t, dir, "branch", "-m", "main", "master")
	if got := openTest(t, dir).DefaultBranch(); got != "master" {
		t.Errorf("local master: %q", got)
	}
	head := gittest.Git(t, dir, "rev-parse", "HEAD")
	gittest.Git(t, dir, "update-ref", "refs/remotes/origin/trunk", head)
	gittest.Git(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
	if got := openTest(t, dir).DefaultBranch(); got != "origin/trunk" {
		t.Errorf("origin HEAD: %q", got)
	}
}
