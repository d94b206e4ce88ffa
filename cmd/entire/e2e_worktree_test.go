package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/fswatch"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// bothStatusModes runs f with the hooks' plain status and with the
// work-tree watcher.
func bothStatusModes(t *testing.T, f func(t *testing.T, r *sessionRepo)) {
	for _, mode := range []string{"0", "1"} {
		t.Run("fsmonitor="+mode, func(t *testing.T) {
			t.Parallel()
			r := newSessionRepo(t)
			r.env = append(r.env, "ENTIRE_FSMONITOR="+mode)
			r.hook("session-start", map[string]any{"source": "startup"})
			if mode == "1" {
				// The watcher answers from its second query on, once it
				// watches the whole tree.
				state := fswatch.StateDir(filepath.Join(r.dir, ".git"))
				r.playTurn("warm up", map[string]string{"warm.txt": "w\n"})
				waitFor(t, "the watcher to be ready", func() bool {
					b, _ := os.ReadFile(fswatch.LogFile(state))
					return strings.Contains(string(b), "watcher ready")
				})
				r.playTurn("warm up again", map[string]string{"warm.txt": "w2\n"})
			}
			f(t, r)
		})
	}
}

// shadowFile returns path's content at the tip of the repository's one
// shadow branch, and whether it is there as a file.
func (r *sessionRepo) shadowFile(path string) (string, bool) {
	r.t.Helper()
	b := shadowBranches(r.t, r.dir)
	if len(b) != 1 {
		r.t.Fatalf("shadow branches %q", b)
	}
	out, err := gittest.GitErr(r.dir, "cat-file", "-p", b[0]+":"+path)
	return out, err == nil
}

// shadowEntry returns the mode and type of path at the shadow tip ("" when
// absent).
func (r *sessionRepo) shadowEntry(path string) string {
	r.t.Helper()
	b := shadowBranches(r.t, r.dir)
	out, _ := gittest.GitErr(r.dir, "ls-tree", b[0], "--", path)
	if f := strings.Fields(out); len(f) >= 2 {
		return f[0] + " " + f[1]
	}
	return ""
}

// A file rewritten in place with the same size and its old modification
// time set back (cp -p, rsync -t, tar, touch -d) is checkpointed with its
// new content, and a rewind restores those bytes (issue 30, item 7).
func TestE2ESameSizeOldMtimeCheckpointed(t *testing.T) {
	t.Parallel()
	bothStatusModes(t, func(t *testing.T, r *sessionRepo) {
		old := time.Now().Add(-time.Hour).Truncate(time.Second)
		r.turnWith("first", map[string]string{"a.txt": "AAAA\n"}, func() {
			if err := os.Chtimes(filepath.Join(r.dir, "a.txt"), old, old); err != nil {
				t.Fatal(err)
			}
		})
		r.turnWith("second", nil, func() {
			p := filepath.Join(r.dir, "a.txt")
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
		if got, _ := r.shadowFile("a.txt"); got != "BBBB\n" && got != "BBBB" {
			t.Fatalf("a.txt in the second turn's checkpoint = %q, want BBBB", got)
		}
		r.playTurn("third", map[string]string{"c.txt": "c\n"})
		r.mustEntire("rewind", "--to", r.pointOf("Second"))
		if b, _ := os.ReadFile(filepath.Join(r.dir, "a.txt")); string(b) != "BBBB\n" {
			t.Errorf("a.txt after a rewind to the second turn = %q", b)
		}
	})
}

// Every change of kind (file, directory, symbolic link) is checkpointed,
// and a directory made again has its files in the checkpoint (item 8).
func TestE2EPathChangesKind(t *testing.T) {
	t.Parallel()
	bothStatusModes(t, func(t *testing.T, r *sessionRepo) {
		sh := func(script string) func() {
			return func() { shell(t, r.dir, script) }
		}
		r.turnWith("make a directory", map[string]string{"d/f1.txt": "one\n", "d/f2.txt": "two\n", "e/x.txt": "x\n", "g.txt": "g\n"}, nil)
		r.turnWith("directory to link, directory to file, file to directory", nil, sh(
			"rm -rf d && ln -s /etc d && rm -rf e && echo file > e && rm g.txt && mkdir g.txt && echo inner > g.txt/in.txt"))
		if got := r.shadowEntry("d"); got != "120000 blob" {
			t.Errorf("d after it became a link: %q", got)
		}
		if got := r.shadowEntry("e"); got != "100644 blob" {
			t.Errorf("e after it became a file: %q", got)
		}
		if got, ok := r.shadowFile("g.txt/in.txt"); !ok || !strings.HasPrefix(got, "inner") {
			t.Errorf("g.txt/in.txt after g.txt became a directory: %q %v", got, ok)
		}
		r.turnWith("directory again", nil, sh("rm d && mkdir d && echo one > d/f1.txt && echo two > d/f2.txt"))
		for _, f := range []string{"d/f1.txt", "d/f2.txt"} {
			if _, ok := r.shadowFile(f); !ok {
				t.Errorf("%s is not in the checkpoint after d was made a directory again", f)
			}
		}
	})
}

// shell runs a script in dir as the agent's shell tool would.
func shell(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// Files of a nested repository whose .git is removed reach the next
// checkpoint, with the watcher too (item 9).
func TestE2ENestedRepositoryRemoved(t *testing.T) {
	t.Parallel()
	bothStatusModes(t, func(t *testing.T, r *sessionRepo) {
		lib := filepath.Join(r.dir, "vendor", "lib")
		gittest.WriteFile(t, lib, "pkg/a.go", "package a\n")
		gittest.Git(t, lib, "init", "-q")
		gittest.Git(t, lib, "add", "-A")
		gittest.Git(t, lib, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "lib")
		r.playTurn("vendor a library", map[string]string{"main.go": "package main\n"})
		if _, ok := r.shadowFile("vendor/lib/pkg/a.go"); ok {
			t.Fatal("a nested repository's files were checkpointed")
		}
		r.turnWith("unvendor its history", nil, func() { shell(t, r.dir, "rm -rf vendor/lib/.git") })
		if got, ok := r.shadowFile("vendor/lib/pkg/a.go"); !ok || !strings.HasPrefix(got, "package a") {
			t.Errorf("vendor/lib/pkg/a.go after its .git was removed: %q %v", got, ok)
		}
	})
}
