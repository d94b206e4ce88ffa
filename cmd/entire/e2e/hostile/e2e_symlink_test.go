//go:build torture

package hostile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A tracked directory the agent replaces with a symbolic link to outside
// the repository is recorded as that link: nothing behind it becomes a git
// object (not at the turn's step, the rewind, the undo or the commit), a
// rewind brings the directory back and its undo the link, and the files
// behind the link are never touched.
func TestE2ESymlinkedDirectoryNotReadThrough(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "a.txt"), []byte("OUTSIDE-a\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "c.txt"), []byte("OUTSIDE-c\n"), 0o644)
	behind := e2etest.Snapshot(t, outside)
	r.Sh(`mkdir -p dir/deep; printf 'a\n' > dir/a.txt; printf 'b\n' > dir/deep/b.txt; git add -A; git commit -q -m project`)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.TurnWith("turn one: a file", map[string]string{"one.txt": "1\n"}, nil)
	withDir := e2etest.Snapshot(t, r.Dir)
	r.TurnWith("turn two: link the directory", map[string]string{"two.txt": "2\n"}, func() {
		r.Sh(`rm -rf dir && ln -s '` + outside + `' dir`)
	})
	withLink := e2etest.Snapshot(t, r.Dir)

	if entry := gittest.Git(t, r.Dir, "ls-tree", r.ShadowBranch(), "dir"); !strings.HasPrefix(entry, "120000 blob ") {
		t.Errorf("the step records dir as %q, want a symbolic link", entry)
	}
	noOutsideObjects := func(when string) {
		t.Helper()
		if hits := e2etest.AllObjectsHolding(t, r.Dir, "OUTSIDE-"); len(hits) != 0 {
			t.Errorf("%s: files behind the link became git objects: %v", when, hits)
		}
	}
	noOutsideObjects("after the step")

	pts := r.Points()
	if _, errOut, code := r.Entire("rewind", "--to", e2etest.PointOfMessage(t, pts, "turn one").ID); code != 0 {
		t.Fatalf("rewind: %s", errOut)
	}
	if d := e2etest.DiffStates(withDir, e2etest.Snapshot(t, r.Dir)); d != "" {
		t.Errorf("after the rewind:\n%s", d)
	}
	if _, errOut, code := r.Entire("rewind", "--undo"); code != 0 {
		t.Fatalf("undo: %s", errOut)
	}
	if d := e2etest.DiffStates(withLink, e2etest.Snapshot(t, r.Dir)); d != "" {
		t.Errorf("after the undo:\n%s", d)
	}
	if d := e2etest.DiffStates(behind, e2etest.Snapshot(t, outside)); d != "" {
		t.Errorf("the files behind the link changed:\n%s", d)
	}
	noOutsideObjects("after the rewind and undo")

	r.Commit("link dir", nil, "-A")
	if entry := gittest.Git(t, r.Dir, "ls-tree", "HEAD", "dir"); !strings.HasPrefix(entry, "120000 blob ") {
		t.Errorf("git itself records dir as %q", entry)
	}
	noOutsideObjects("after the commit")
}
