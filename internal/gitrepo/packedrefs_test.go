package gitrepo

import (
	"bytes"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

// ReadRef agrees with git on loose and packed refs as they change: a ref
// packed, then updated loose, then deleted, then packed again with others;
// and a symbolic ref.
func TestReadRefPackedAndLoose(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	repo := openTest(t, dir)
	head := plumbing.NewHash(gittest.Git(t, dir, "rev-parse", "HEAD"))
	tree := gittest.Git(t, dir, "rev-parse", "HEAD^{tree}")
	other := plumbing.NewHash(gittest.Git(t, dir, "commit-tree", tree, "-m", "other"))
	const name = plumbing.ReferenceName("refs/entire/checkpoints/6D/01K9TQ8ZP7X3F5M2WVJ4CNRB6D")
	want := func(step string, n plumbing.ReferenceName, h plumbing.Hash) {
		t.Helper()
		got, err := repo.ReadRef(n)
		if err != nil || got != h {
			t.Errorf("%s: ReadRef(%s) = %s, %v; want %s", step, n, got, err, h)
		}
	}
	gittest.Git(t, dir, "update-ref", string(name), head.String())
	gittest.Git(t, dir, "pack-refs", "--all")
	want("packed", name, head)
	want("packed branch", "refs/heads/main", head)
	gittest.Git(t, dir, "update-ref", string(name), other.String())
	want("loose over packed", name, other)
	gittest.Git(t, dir, "update-ref", "-d", string(name))
	want("deleted", name, plumbing.ZeroHash)
	for i, h := range []plumbing.Hash{head, other} {
		gittest.Git(t, dir, "update-ref", "refs/entire/checkpoints/0"+string(rune('0'+i))+"/x", h.String())
	}
	gittest.Git(t, dir, "update-ref", string(name), head.String())
	gittest.Git(t, dir, "pack-refs", "--all")
	want("packed again", name, head)
	want("another packed", "refs/entire/checkpoints/01/x", other)
	want("missing", "refs/entire/checkpoints/zz/none", plumbing.ZeroHash)
	gittest.Git(t, dir, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
	want("symbolic", "refs/heads/alias", head)
}

// findPacked never panics, and what it finds is a line of the file: the
// hash it returns, a space and the name, at a line start.
func FuzzFindPacked(f *testing.F) {
	f.Add([]byte("# pack-refs with: peeled fully-peeled sorted \n0123456789012345678901234567890123456789 refs/heads/main\n^1111111111111111111111111111111111111111\n"), "refs/heads/main")
	f.Add([]byte(" refs/heads/main\n"), "refs/heads/main")
	f.Add([]byte("xyz refs/a\n0123456789012345678901234567890123456789 refs/a\n"), "refs/a")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		h, found, err := findPacked(data, name)
		if err != nil || !found {
			return
		}
		line := h.String() + " " + name + "\n"
		if !bytes.HasPrefix(data, []byte(line)) && !bytes.Contains(data, []byte("\n"+line)) {
			t.Fatalf("found %s for %q, which is no line of the file", h, name)
		}
	})
}

// A packed-refs file git did not sort (written by another tool) is found
// all the same; comments and peeled lines are no refs.
func TestFindPackedUnsorted(t *testing.T) {
	t.Parallel()
	a, b := "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	data := []byte("# pack-refs with: peeled\n" + b + " refs/tags/z\n^3333333333333333333333333333333333333333\n" + a + " refs/heads/a\n")
	for name, want := range map[string]string{"refs/heads/a": a, "refs/tags/z": b} {
		h, found, err := findPacked(data, name)
		if err != nil || !found || h.String() != want {
			t.Errorf("findPacked(%s) = %s %v %v", name, h, found, err)
		}
	}
	if _, found, _ := findPacked(data, "refs/heads/b"); found {
		t.Error("found a ref the file does not have")
	}
}
