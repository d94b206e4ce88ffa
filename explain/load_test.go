package explain

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// metaCommit commits a tree holding the given files (path → content) on
// top of parents, by author, and returns its hash.
func metaCommit(t *testing.T, dir, author string, files []string, parents ...string) string {
	t.Helper()
	work := t.TempDir()
	for _, f := range files {
		gittest.WriteFile(t, work, f, "{}")
	}
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(gittest.Env(t.TempDir()), "GIT_INDEX_FILE="+filepath.Join(work, ".idx"),
			"GIT_AUTHOR_NAME="+author, "GIT_AUTHOR_EMAIL="+strings.ToLower(author)+"@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("--work-tree="+work, "add", "-A", "--", ".", ":!.idx")
	args := []string{"commit-tree", run("write-tree"), "-m", "Checkpoint"}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	return run(args...)
}

func TestAuthorOfCheckpoint(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	a := "aa/0000000001/metadata.json"
	b := "bb/0000000002/metadata.json"
	c := "cc/0000000003/metadata.json"
	c1 := metaCommit(t, dir, "Ann", []string{a})
	c2 := metaCommit(t, dir, "Bob", []string{a, b}, c1)
	other := metaCommit(t, dir, "Cat", []string{a, c}, c1) // written in another clone
	merge := metaCommit(t, dir, "Merger", []string{a, b, c}, c2, other)
	tip := merge
	for i := 0; i < 40; i++ {
		tip = metaCommit(t, dir, "Later", []string{a, b, c}, tip)
	}
	gittest.Git(t, dir, "update-ref", "refs/heads/"+checkpoint.MetadataBranch, tip)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: os.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	l := &Loader{Repo: repo, Store: checkpoint.NewStore(repo, nil)}
	for id, want := range map[checkpoint.ID]string{
		"aa0000000001": "Ann <ann@example.com>",
		"bb0000000002": "Bob <bob@example.com>",
		"cc0000000003": "Cat <cat@example.com>",
		"dd0000000004": "",
	} {
		if got := l.author(context.Background(), id); got != want {
			t.Errorf("author(%s) = %q, want %q", id, got, want)
		}
	}
}
