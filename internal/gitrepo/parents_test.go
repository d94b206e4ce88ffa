package gitrepo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

// Directories replaced by a symbolic link (to outside the repository) or
// by a file are snapshotted as git records them: the link or the file, in
// whatever order the paths come, with nothing read through the link.
func TestWorktreeChangesBlockedParents(t *testing.T) {
	t.Parallel()
	for _, order := range [][]string{
		{"linked", "linked/a.txt", "linked/sub/b.txt", "filed", "filed/c.txt", "gone/d.txt"},
		{"linked/sub/b.txt", "linked/a.txt", "linked", "filed/c.txt", "filed", "gone/d.txt"},
		{"linked/a.txt", "filed/c.txt", "gone/d.txt"}, // git status lists the deletions first
	} {
		dir := gittest.Init(t)
		for _, f := range []string{"linked/a.txt", "linked/sub/b.txt", "filed/c.txt", "gone/d.txt", "keep.txt"} {
			gittest.WriteFile(t, dir, f, f+"\n")
		}
		gittest.Git(t, dir, "add", "-A")
		gittest.Git(t, dir, "commit", "-q", "-m", "base")
		r := openTest(t, dir)
		base := headTree(t, r)

		outside := t.TempDir()
		gittest.WriteFile(t, outside, "a.txt", "outside a\n")
		gittest.WriteFile(t, outside, "sub/b.txt", "outside b\n")
		for _, d := range []string{"linked", "filed", "gone"} {
			os.RemoveAll(filepath.Join(dir, d))
		}
		os.Symlink(outside, filepath.Join(dir, "linked"))
		gittest.WriteFile(t, dir, "filed", "a file now\n")

		changes, err := r.WorktreeChanges(order)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.BuildTree(base, changes)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"outside a\n", "outside b\n"} {
			if r.HasObject(plumbing.ComputeHash(plumbing.BlobObject, []byte(s))) {
				t.Errorf("order %v: %q, behind the link, was stored", order, s)
			}
		}
		gittest.Git(t, dir, "add", "-A")
		if want := gittest.Git(t, dir, "write-tree"); got.String() != want {
			t.Errorf("order %v: BuildTree gives\n%s\ngit write-tree gives\n%s", order, lsTree(t, dir, got), lsTree(t, dir, plumbing.NewHash(want)))
		}
	}
}
