package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/fswatch"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// bothStatusModes runs f with the hooks' plain status and with the
// work-tree watcher.
func bothStatusModes(t *testing.T, f func(t *testing.T, r *e2etest.SessionRepo)) {
	for _, mode := range []string{"0", "1"} {
		t.Run("fsmonitor="+mode, func(t *testing.T) {
			t.Parallel()
			r := e2etest.NewSessionRepo(t)
			r.Env = append(r.Env, "ENTIRE_FSMONITOR="+mode)
			r.Hook("session-start", map[string]any{"source": "startup"})
			if mode == "1" {
				// The watcher answers from its second query on, once it
				// watches the whole tree.
				state := fswatch.StateDir(filepath.Join(r.Dir, ".git"))
				r.PlayTurn("warm up", map[string]string{"warm.txt": "w\n"})
				e2etest.AwaitLine(t, fswatch.LogFile(state), "watcher ready", 10*time.Second)
				r.PlayTurn("warm up again", map[string]string{"warm.txt": "w2\n"})
			}
			f(t, r)
		})
	}
}

// A file rewritten in place with the same size and its old modification
// time set back (cp -p, rsync -t, tar, touch -d) is checkpointed with its
// new content, and a rewind restores those bytes (issue 30, item 7).
func TestE2ESameSizeOldMtimeCheckpointed(t *testing.T) {
	t.Parallel()
	bothStatusModes(t, func(t *testing.T, r *e2etest.SessionRepo) {
		old := time.Now().Add(-time.Hour).Truncate(time.Second)
		r.TurnWith("first", map[string]string{"a.txt": "AAAA\n"}, func() {
			if err := os.Chtimes(filepath.Join(r.Dir, "a.txt"), old, old); err != nil {
				t.Fatal(err)
			}
		})
		r.TurnWith("second", nil, func() {
			p := filepath.Join(r.Dir, "a.txt")
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt([]byte("BBBB\n"), 0); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		})
		if got, _ := r.ShadowFile("a.txt"); got != "BBBB\n" && got != "BBBB" {
			t.Fatalf("a.txt in the second turn's checkpoint = %q, want BBBB", got)
		}
		r.PlayTurn("third", map[string]string{"c.txt": "c\n"})
		r.MustEntire("rewind", "--to", r.PointOf("Second"))
		if b, _ := os.ReadFile(filepath.Join(r.Dir, "a.txt")); string(b) != "BBBB\n" {
			t.Errorf("a.txt after a rewind to the second turn = %q", b)
		}
	})
}

// Every change of kind (file, directory, symbolic link) is checkpointed,
// and a directory made again has its files in the checkpoint (item 8).
func TestE2EPathChangesKind(t *testing.T) {
	t.Parallel()
	bothStatusModes(t, func(t *testing.T, r *e2etest.SessionRepo) {
		sh := func(script string) func() {
			return func() { e2etest.Shell(t, r.Dir, script) }
		}
		r.TurnWith("make a directory", map[string]string{"d/f1.txt": "one\n", "d/f2.txt": "two\n", "e/x.txt": "x\n", "g.txt": "g\n"}, nil)
		r.TurnWith("directory to link, directory to file, file to directory", nil, sh(
			"rm -rf d && ln -s /etc d && rm -rf e && echo file > e && rm g.txt && mkdir g.txt && echo inner > g.txt/in.txt"))
		if got := r.ShadowEntry("d"); got != "120000 blob" {
			t.Errorf("d after it became a link: %q", got)
		}
		if got := r.ShadowEntry("e"); got != "100644 blob" {
			t.Errorf("e after it became a file: %q", got)
		}
		if got, ok := r.ShadowFile("g.txt/in.txt"); !ok || !strings.HasPrefix(got, "inner") {
			t.Errorf("g.txt/in.txt after g.txt became a directory: %q %v", got, ok)
		}
		r.TurnWith("directory again", nil, sh("rm d && mkdir d && echo one > d/f1.txt && echo two > d/f2.txt"))
		for _, f := range []string{"d/f1.txt", "d/f2.txt"} {
			if _, ok := r.ShadowFile(f); !ok {
				t.Errorf("%s is not in the checkpoint after d was made a directory again", f)
			}
		}
	})
}

// Files of a nested repository whose .git is removed reach the next
// checkpoint, with the watcher too (item 9).
func TestE2ENestedRepositoryRemoved(t *testing.T) {
	t.Parallel()
	bothStatusModes(t, func(t *testing.T, r *e2etest.SessionRepo) {
		lib := filepath.Join(r.Dir, "vendor", "lib")
		gittest.WriteFile(t, lib, "pkg/a.go", "package a\n")
		gittest.Git(t, lib, "init", "-q")
		gittest.Git(t, lib, "add", "-A")
		gittest.Git(t, lib, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "lib")
		r.PlayTurn("vendor a library", map[string]string{"main.go": "package main\n"})
		if _, ok := r.ShadowFile("vendor/lib/pkg/a.go"); ok {
			t.Fatal("a nested repository's files were checkpointed")
		}
		r.TurnWith("unvendor its history", nil, func() { e2etest.Shell(t, r.Dir, "rm -rf vendor/lib/.git") })
		if got, ok := r.ShadowFile("vendor/lib/pkg/a.go"); !ok || !strings.HasPrefix(got, "package a") {
			t.Errorf("vendor/lib/pkg/a.go after its .git was removed: %q %v", got, ok)
		}
	})
}
