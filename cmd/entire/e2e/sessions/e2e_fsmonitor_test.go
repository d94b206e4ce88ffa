package sessions

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/fswatch"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// TestE2EWatcherStatus: the hooks' status through the work-tree watcher
// (issue 16): a hook starts the watcher, a file the agent's shell made
// (named nowhere in the transcript) is in the turn's checkpoint, an edit
// made right after Stop returned is not, the user's index and config are
// byte-for-byte what they were, and the watcher exits when the work tree
// is removed.
func TestE2EWatcherStatus(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Env = append(r.Env, "ENTIRE_FSMONITOR=1") // a small repository
	gitDir := filepath.Join(r.Dir, ".git")
	state := fswatch.StateDir(gitDir)
	index0, err := os.ReadFile(filepath.Join(gitDir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	config0, err := os.ReadFile(filepath.Join(gitDir, "config"))
	if err != nil {
		t.Fatal(err)
	}

	r.PlayTurn("warm up", map[string]string{"a.txt": "a\n"})
	e2etest.AwaitLine(t, fswatch.LogFile(state), "watcher started", 10*time.Second)
	e2etest.AwaitLine(t, fswatch.LogFile(state), "watcher ready", 10*time.Second)
	r.PlayTurn("second", map[string]string{"b.txt": "b\n"}) // the monitor's first token

	r.TurnWith("shell work", map[string]string{"c.txt": "c\n"}, func() {
		cmd := exec.Command("sh", "-c", "mkdir -p made && echo from-shell > made/by-shell.txt && echo edited > a.txt")
		cmd.Dir = r.Dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	})
	// Right after Stop returned: not part of this turn.
	gittest.WriteFile(t, r.Dir, "late.txt", "late\n")
	gittest.WriteFile(t, r.Dir, "a.txt", "late edit\n")

	branches := e2etest.ShadowBranches(t, r.Dir)
	if len(branches) != 1 {
		t.Fatalf("shadow branches %q", branches)
	}
	files := gittest.Git(t, r.Dir, "ls-tree", "-r", "--name-only", branches[0])
	if !strings.Contains(files, "made/by-shell.txt") {
		t.Errorf("the shell-made file is not in the checkpoint:\n%s", files)
	}
	if strings.Contains(files, "late.txt") {
		t.Errorf("a file written after Stop returned is in the checkpoint:\n%s", files)
	}
	if got := gittest.Git(t, r.Dir, "show", branches[0]+":a.txt"); got != "edited" && got != "edited\n" {
		t.Errorf("a.txt in the checkpoint = %q, want the shell's edit", got)
	}
	idx, err := os.ReadFile(fswatch.IndexFile(state))
	if err != nil {
		t.Fatalf("no private index: %v", err)
	}
	if !bytes.Contains(idx, []byte("FSMN")) || !bytes.Contains(idx, []byte("UNTR")) {
		t.Error("the private index has no fsmonitor or untracked-cache extension")
	}
	if b, _ := os.ReadFile(filepath.Join(gitDir, "index")); !bytes.Equal(b, index0) {
		t.Error(".git/index changed")
	}
	if b, _ := os.ReadFile(filepath.Join(gitDir, "config")); !bytes.Equal(b, config0) {
		t.Errorf(".git/config changed:\n%s", b)
	}
	if strings.Contains(e2etest.LogText(r.Dir), "fast git status failed") {
		t.Errorf("the fast status fell back:\n%s", e2etest.LogText(r.Dir))
	}

	if err := os.RemoveAll(r.Dir); err != nil {
		t.Fatal(err)
	}
	e2etest.AwaitWatchersExit(t)
	if _, err := os.Stat(r.Dir); !os.IsNotExist(err) {
		t.Fatalf("the work tree came back: %v", err)
	}
}

// TestE2EDisableStopsWatcher: `entire disable` makes the hooks no-ops, so
// the work tree's watcher is asked to exit, and `--uninstall` removes its
// state directory and the private index's shared index, leaving the user's
// own.
func TestE2EDisableStopsWatcher(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Env = append(r.Env, "ENTIRE_FSMONITOR=1") // a small repository
	gitDir := filepath.Join(r.Dir, ".git")
	state := fswatch.StateDir(gitDir)
	// A shared index of the user's own split index: never ours to remove.
	users := filepath.Join(gitDir, "sharedindex.0123456789012345678901234567890123456789")
	if err := os.WriteFile(users, []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.PlayTurn("start it", map[string]string{"a.txt": "a\n"})
	e2etest.AwaitLine(t, fswatch.LogFile(state), "watcher started", 10*time.Second)
	r.PlayTurn("again", map[string]string{"b.txt": "b\n"})
	ours, _ := filepath.Glob(filepath.Join(gitDir, "sharedindex.*"))
	if len(ours) != 2 {
		t.Fatalf("shared index files %v, want the user's and one of the private index", ours)
	}

	r.MustEntire("disable")
	e2etest.AwaitWatchersExit(t)

	r.MustEntire("disable", "--uninstall", "--force")
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Fatalf("the watcher's state survived --uninstall: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(gitDir, "sharedindex.*")); len(left) != 1 || left[0] != users {
		t.Fatalf("after --uninstall the shared index files are %v, want only the user's", left)
	}
}

// TestE2ESmallRepoRunsPlainStatus: below about 10k files git's own scan is
// cheaper than the monitor, so a small repository's hooks start no
// watcher and keep no private index.
func TestE2ESmallRepoRunsPlainStatus(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	state := fswatch.StateDir(filepath.Join(r.Dir, ".git"))
	r.PlayTurn("small", map[string]string{"a.txt": "a\n"})
	r.PlayTurn("still small", map[string]string{"b.txt": "b\n"})
	if fswatch.Running(state) {
		t.Error("a watcher runs for a small repository")
	}
	if _, err := os.Stat(fswatch.IndexFile(state)); !os.IsNotExist(err) {
		t.Errorf("a small repository got a private index: %v", err)
	}
}
