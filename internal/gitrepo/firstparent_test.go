package gitrepo

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
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
	gittest.Git(t, dir, "commit-graph", "write", "--reachable")
	check("a commit-graph of every commit")
}

// A damaged commit-graph whose first parents make a loop ends the walk
// with an error.
func TestFirstParentChainDamagedGraph(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	for range 3 {
		gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "more")
	}
	gittest.Git(t, dir, "commit-graph", "write", "--reachable")
	path := filepath.Join(dir, ".git", "objects", "info", "commit-graph")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g := readGraphColumns(data, 4)
	if g == nil {
		t.Fatal("the commit-graph git wrote was not read")
	}
	for pos := range 4 { // every first parent: position 0
		binary.BigEndian.PutUint32(g.cdat[pos*(g.hashLen+16)+g.hashLen:], 0)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := openTest(t, dir)
	head, err := r.Head()
	if err != nil {
		t.Fatal(err)
	}
	if chain, err := r.FirstParentChain(context.Background(), head); err == nil {
		t.Fatalf("a looping graph gave a chain of %d", len(chain))
	}
}

// Whatever a commit-graph file holds, reading its columns and walking them
// ends, without a panic, in a chain no longer than the graph.
func FuzzGraphColumns(f *testing.F) {
	dir := gittest.InitWithCommit(f)
	for range 3 {
		gittest.Git(f, dir, "commit", "-q", "--allow-empty", "-m", "more")
	}
	gittest.Git(f, dir, "commit-graph", "write", "--reachable")
	data, err := os.ReadFile(filepath.Join(dir, ".git", "objects", "info", "commit-graph"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, uint32(4), uint32(3))
	f.Add(data[:200], uint32(4), uint32(0))
	f.Fuzz(func(t *testing.T, data []byte, n, start uint32) {
		n %= 1 << 12
		g := readGraphColumns(data, n)
		if g == nil {
			return
		}
		chain, err := g.appendChain(nil, start)
		if err == nil && (len(chain) == 0 || len(chain) > int(n)) {
			t.Fatalf("a chain of %d in a graph of %d", len(chain), n)
		}
	})
}
