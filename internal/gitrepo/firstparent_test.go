package gitrepo

import (
	"context"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// The first-parent chain is git's, through a commit-graph file that holds
// only the older commits, merges included, and without one.
func TestFirstParentChain(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	commit := func(msg string) {
		gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	}
	for i := range 5 {
		commit("main " + string(rune('a'+i)))
	}
	gittest.Git(t, dir, "checkout", "-q", "-b", "side", "HEAD~2")
	commit("side")
	gittest.Git(t, dir, "checkout", "-q", "main")
	gittest.Git(t, dir, "merge", "-q", "--no-edit", "side")
	check := func(when string) {
		r := openTest(t, dir)
		head, err := r.Head()
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.FirstParentChain(context.Background(), head)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Fields(gittest.Git(t, dir, "rev-list", "--first-parent", "HEAD"))
		var have []string
		for _, h := range got {
			have = append(have, h.String())
		}
		if strings.Join(have, " ") != strings.Join(want, " ") {
			t.Errorf("%s: chain\n%v\nwant\n%v", when, have, want)
		}
	}
	check("no commit-graph")
	gittest.Git(t, dir, "commit-graph", "write", "--reachable")
	commit("after the graph")
	commit("after the graph, 2")
	check("a commit-graph of the older commits")
}
