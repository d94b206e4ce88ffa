package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func TestUpdateRefCompareAndSwap(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	r := openTest(t, dir)
	head, _ := r.Head()
	name := plumbing.ReferenceName("refs/heads/entire/test")

	if err := r.UpdateRef(name, head, plumbing.ZeroHash); err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateRef(name, head, plumbing.ZeroHash); !errors.Is(err, ErrRefChanged) {
		t.Fatalf("create over existing ref: %v, want ErrRefChanged", err)
	}
	if got := gittest.Git(t, dir, "rev-parse", "entire/test"); got != head.String() {
		t.Fatalf("git sees %s", got)
	}
	// A ref that only lives in packed-refs is seen and updated.
	gittest.Git(t, dir, "pack-refs", "--all")
	if cur, _ := r.ReadRef(name); cur != head {
		t.Fatalf("packed ref read as %s", cur)
	}
	c := commitOn(t, r, head, "second")
	if err := r.UpdateRef(name, c, head); err != nil {
		t.Fatal(err)
	}
	if got := gittest.Git(t, dir, "rev-parse", "entire/test"); got != c.String() {
		t.Fatalf("after update git sees %s", got)
	}
	if err := r.DeleteRef(context.Background(), name, c); err != nil {
		t.Fatal(err)
	}
	if cur, _ := r.ReadRef(name); !cur.IsZero() {
		t.Fatalf("deleted ref still reads %s", cur)
	}
	gittest.Fsck(t, dir)
}

func commitOn(t *testing.T, r *Repo, parent plumbing.Hash, msg string) plumbing.Hash {
	t.Helper()
	blob, err := r.WriteBlob([]byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	var parents []plumbing.Hash
	var base plumbing.Hash
	if !parent.IsZero() {
		parents = []plumbing.Hash{parent}
		pc, err := r.Git.CommitObject(parent)
		if err != nil {
			t.Fatal(err)
		}
		base = pc.TreeHash
	}
	tree, err := r.BuildTree(base, []Change{{Path: "f/" + msg, Mode: filemode.Regular, Hash: blob}})
	if err != nil {
		t.Fatal(err)
	}
	sig := object.Signature{Name: "T", Email: "t@e", When: time.Unix(1700000000, 0)}
	h, err := r.WriteCommit(&object.Commit{Author: sig, Committer: sig, Message: msg + "\n", TreeHash: tree, ParentHashes: parents})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Two writers race on one ref through UpdateRefFunc: every commit of both
// must end up in the history, none lost.
func TestUpdateRefFuncRaceLosesNothing(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	name := plumbing.ReferenceName("refs/heads/entire/race")
	const writers, each = 2, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := openTest(t, dir) // separate handles, like separate processes
			for i := 0; i < each; i++ {
				msg := fmt.Sprintf("w%d-%d", w, i)
				_, err := r.UpdateRefFunc(context.Background(), name, func(cur plumbing.Hash) (plumbing.Hash, error) {
					return commitOn(t, r, cur, msg), nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	count := gittest.Git(t, dir, "rev-list", "--count", "entire/race")
	if count != fmt.Sprint(writers*each) {
		t.Fatalf("history has %s commits, want %d", count, writers*each)
	}
	files := gittest.Git(t, dir, "ls-tree", "-r", "--name-only", "entire/race")
	if n := len(splitLines(files)); n != writers*each {
		t.Fatalf("tip tree has %d files, want %d", n, writers*each)
	}
	gittest.Fsck(t, dir)
}

func splitLines(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }

func TestOpen(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	gittest.WriteFile(t, dir, "sub/dir/x.txt", "x")
	noEnv := Options{Getenv: func(string) string { return "" }}

	r, err := Open(filepath.Join(dir, "sub", "dir"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if r.Root != dir || r.GitDir != filepath.Join(dir, ".git") || r.CommonDir != r.GitDir || r.WorktreeID != "" {
		t.Errorf("subdir open: %+v", r)
	}

	wt := filepath.Join(t.TempDir(), "linked")
	gittest.Git(t, dir, "worktree", "add", "-q", "-b", "feature", wt)
	lr, err := Open(wt, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if lr.Root != wt || lr.CommonDir != filepath.Join(dir, ".git") || lr.WorktreeID != "linked" {
		t.Errorf("linked worktree open: %+v", lr)
	}
	if b, _ := lr.HeadBranch(); b != "feature" {
		t.Errorf("linked worktree branch %q", b)
	}
	if h, _ := lr.Head(); h.IsZero() {
		t.Error("linked worktree HEAD unresolved")
	}

	// Inside a git hook: GIT_DIR relative to the work-tree root.
	env := map[string]string{"GIT_DIR": ".git"}
	hr, err := Open(dir, Options{Getenv: func(k string) string { return env[k] }})
	if err != nil || hr.Root != dir || hr.GitDir != filepath.Join(dir, ".git") {
		t.Errorf("GIT_DIR open: %+v %v", hr, err)
	}

	if _, err := Open(t.TempDir(), noEnv); !errors.Is(err, ErrNotRepository) {
		t.Errorf("non-repository: %v", err)
	}
}

func TestEmptyRepositoryHead(t *testing.T) {
	t.Parallel()
	r := openTest(t, gittest.Init(t))
	h, err := r.Head()
	if err != nil || !h.IsZero() {
		t.Fatalf("Head of empty repo = %s, %v", h, err)
	}
	if b, _ := r.HeadBranch(); b != "main" {
		t.Errorf("unborn branch %q", b)
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	gittest.WriteFile(t, dir, "README.md", "changed\n")
	gittest.WriteFile(t, dir, "new dir/with space.txt", "n")
	gittest.WriteFile(t, dir, ".gitignore", "ignored.txt\n")
	gittest.WriteFile(t, dir, "ignored.txt", "i")
	r := openTest(t, dir)
	entries, err := r.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range entries {
		got[e.Path] = string([]byte{e.X, e.Y})
	}
	want := map[string]string{"README.md": " M", "new dir/with space.txt": "??", ".gitignore": "??"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("status = %v, want %v", got, want)
	}
}

func TestWriteBlobFileStreamsLargeFiles(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	r := openTest(t, dir)
	p := filepath.Join(t.TempDir(), "big.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(`{"type":"assistant","message":{"content":"` + string(make([]byte, 0)) + `lorem ipsum dolor sit amet"}}` + "\n")
	for i := 0; i < 200000; i++ {
		f.Write(line)
	}
	f.Close()
	h, err := r.WriteBlobFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want, err := exec.Command("git", "hash-object", p).Output()
	if err != nil {
		t.Fatal(err)
	}
	if h.String()+"\n" != string(want) {
		t.Fatalf("hash %s, git says %s", h, want)
	}
	if out := gittest.Git(t, dir, "cat-file", "-s", h.String()); out != fmt.Sprint(200000*len(line)) {
		t.Fatalf("stored size %s", out)
	}
	gittest.Fsck(t, dir)
}
