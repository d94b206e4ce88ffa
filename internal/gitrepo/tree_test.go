package gitrepo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func openTest(t *testing.T, dir string) *Repo {
	t.Helper()
	r, err := Open(dir, Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func headTree(t *testing.T, r *Repo) plumbing.Hash {
	t.Helper()
	h, err := r.Head()
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Git.CommitObject(h)
	if err != nil {
		t.Fatal(err)
	}
	return c.TreeHash
}

// lsTree returns "mode path" lines of a tree, recursively, as git prints them.
func lsTree(t *testing.T, dir string, tree plumbing.Hash) string {
	t.Helper()
	out := gittest.Git(t, dir, "ls-tree", "-r", "--format=%(objectmode) %(path)", tree.String())
	return out
}

func TestBuildTree(t *testing.T) {
	t.Parallel()
	dir := gittest.Init(t)
	gittest.WriteFile(t, dir, "README.md", "hello\n")
	gittest.WriteFile(t, dir, "src/a.go", "package a\n")
	gittest.WriteFile(t, dir, "src/b.go", "package b\n")
	gittest.WriteFile(t, dir, "lonely/only.txt", "x\n")
	gittest.WriteFile(t, dir, "deep/x/y/z.txt", "z\n")
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-q", "-m", "base")
	r := openTest(t, dir)
	base := headTree(t, r)

	// Change the work tree in every way a step can see.
	gittest.WriteFile(t, dir, "src/a.go", "package a // changed\n")
	gittest.WriteFile(t, dir, "new/dir/file.txt", "new\n")
	if err := os.Remove(filepath.Join(dir, "lonely/only.txt")); err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, dir, "run.sh", "#!/bin/sh\necho hi\n")
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src/a.go", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "deep/x/y/z.txt")); err != nil {
		t.Fatal(err)
	}

	paths := []string{"src/a.go", "new/dir/file.txt", "lonely/only.txt", "run.sh", "link", "deep/x/y/z.txt"}
	changes, err := r.WorktreeChanges(paths)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.BuildTree(base, changes)
	if err != nil {
		t.Fatal(err)
	}

	// git itself must produce the same tree from the same work tree.
	gittest.Git(t, dir, "add", "-A")
	want := gittest.Git(t, dir, "write-tree")
	if got.String() != want {
		t.Errorf("BuildTree = %s, git write-tree = %s\nours:\n%s\ngit's:\n%s", got, want,
			lsTree(t, dir, got), lsTree(t, dir, plumbing.NewHash(want)))
	}
	listing := lsTree(t, dir, got)
	for _, line := range []string{"100755 run.sh", "120000 link", "100644 new/dir/file.txt"} {
		if !strings.Contains(listing, line) {
			t.Errorf("tree lacks %q:\n%s", line, listing)
		}
	}
	if strings.Contains(listing, "lonely") || strings.Contains(listing, "deep") {
		t.Errorf("emptied directories should disappear:\n%s", listing)
	}
	gittest.Fsck(t, dir)
}

func TestBuildTreeUnchangedSubtreesKeepTheirHash(t *testing.T) {
	t.Parallel()
	dir := gittest.Init(t)
	gittest.WriteFile(t, dir, "a/1.txt", "1\n")
	gittest.WriteFile(t, dir, "b/2.txt", "2\n")
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-q", "-m", "base")
	r := openTest(t, dir)
	base := headTree(t, r)
	blob, err := r.WriteBlob([]byte("3\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.BuildTree(base, []Change{{Path: "a/3.txt", Mode: filemode.Regular, Hash: blob}})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := object.GetTree(r.storage, base)
	after, _ := object.GetTree(r.storage, got)
	bBefore, _ := before.FindEntry("b")
	bAfter, _ := after.FindEntry("b")
	if bBefore.Hash != bAfter.Hash {
		t.Error("untouched subtree b was rewritten")
	}
}

func TestBuildTreeEdgeCases(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	r := openTest(t, dir)
	base := headTree(t, r)
	blob, _ := r.WriteBlob([]byte("x"))

	// Deleting the last file leaves the empty tree.
	h, err := r.BuildTree(base, []Change{{Path: "README.md", Delete: true}})
	if err != nil || h != EmptyTree {
		t.Fatalf("delete last file = %s, %v; want empty tree", h, err)
	}
	// A file replaced by a directory, and the other way round.
	h, err = r.BuildTree(base, []Change{{Path: "README.md/inner", Mode: filemode.Regular, Hash: blob}})
	if err != nil {
		t.Fatal(err)
	}
	if got := lsTree(t, dir, h); got != "100644 README.md/inner" {
		t.Errorf("file->dir: %q", got)
	}
	h2, err := r.BuildTree(h, []Change{{Path: "README.md", Mode: filemode.Regular, Hash: blob}})
	if err != nil {
		t.Fatal(err)
	}
	if got := lsTree(t, dir, h2); got != "100644 README.md" {
		t.Errorf("dir->file: %q", got)
	}
	// Later changes to one path win.
	h3, err := r.BuildTree(base, []Change{
		{Path: "d/f", Mode: filemode.Regular, Hash: blob},
		{Path: "d", Delete: true},
		{Path: "e/f", Mode: filemode.Regular, Hash: blob},
		{Path: "e", Mode: filemode.Regular, Hash: blob},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := lsTree(t, dir, h3); got != "100644 README.md\n100644 e" {
		t.Errorf("later change wins: %q", got)
	}
	// Deletes below a path that is now a file or a link delete nothing:
	// the file stays (a directory became a link; its files were clean
	// again).
	link, _ := r.WriteBlob([]byte("/etc"))
	h5, err := r.BuildTree(h3, []Change{
		{Path: "e", Mode: filemode.Symlink, Hash: link},
		{Path: "e/f", Delete: true},
		{Path: "README.md/x", Delete: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := lsTree(t, dir, h5); got != "100644 README.md\n120000 e" {
		t.Errorf("deletes below a file or a link: %q", got)
	}
	for _, bad := range []string{"", "/abs", "a//b", "a/../b", ".git/config", "a/./b"} {
		if _, err := r.BuildTree(base, []Change{{Path: bad, Mode: filemode.Regular, Hash: blob}}); err == nil {
			t.Errorf("path %q accepted", bad)
		}
	}
	// Git's canonical order: "a.txt" < "a/" < "a0".
	h4, err := r.BuildTree(plumbing.ZeroHash, []Change{
		{Path: "a0", Mode: filemode.Regular, Hash: blob},
		{Path: "a/x", Mode: filemode.Regular, Hash: blob},
		{Path: "a.txt", Mode: filemode.Regular, Hash: blob},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := gittest.Git(t, dir, "ls-tree", "--name-only", h4.String()); got != "a.txt\na\na0" {
		t.Errorf("order: %q", got)
	}
	gittest.Fsck(t, dir)
}

func TestWorktreeChangesCached(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	r := openTest(t, dir)
	path := filepath.Join(dir, "f.txt")
	old := time.Now().Add(-time.Hour)
	gittest.WriteFile(t, dir, "f.txt", "one\n")
	os.Chtimes(path, old, old)
	first, cache, err := r.WorktreeChangesCached([]string{"f.txt"}, nil)
	if err != nil || len(cache) != 1 || cache["f.txt"].CtimeNs == 0 || cache["f.txt"].RecordedNs == 0 {
		t.Fatalf("first: %v %v", cache, err)
	}
	// Read just now (its change time within the racy window of the
	// reading): read again.
	if _, next, _ := r.WorktreeChangesCached([]string{"f.txt"}, cache); next["f.txt"].RecordedNs == cache["f.txt"].RecordedNs {
		t.Fatal("a file changed within the racy window of its reading was taken from the cache")
	}
	// Unchanged stat data recorded well after the last change: the cached
	// blob is used (the file is not read: the entry's hash is another
	// blob's, and it comes back).
	other, _ := r.WriteBlob([]byte("other\n"))
	entry := cache["f.txt"]
	entry.Hash, entry.RecordedNs = other.String(), entry.CtimeNs+int64(time.Hour)
	again, _, err := r.WorktreeChangesCached([]string{"f.txt"}, map[string]FileStat{"f.txt": entry})
	if err != nil || again[0].Hash != other {
		t.Fatalf("cached stat not used: %v", err)
	}
	// Rewritten in place with the same size and the modification time set
	// back (cp -p, touch -d): the change time tells, and it is read.
	os.WriteFile(path, []byte("two\n"), 0o644)
	os.Chtimes(path, old, old)
	third, _, err := r.WorktreeChangesCached([]string{"f.txt"}, map[string]FileStat{"f.txt": entry})
	if err != nil || third[0].Hash == other || third[0].Hash == first[0].Hash {
		t.Fatalf("a file rewritten with its old mtime was taken from the cache: %v", err)
	}
	// An entry of an older version (no change time) is read again.
	legacy := entry
	legacy.CtimeNs, legacy.RecordedNs = 0, 0
	if fourth, _, _ := r.WorktreeChangesCached([]string{"f.txt"}, map[string]FileStat{"f.txt": legacy}); fourth[0].Hash == other {
		t.Fatal("an entry without a change time was trusted")
	}
}
