//go:build torture

// The longest scenarios of this package run in the torture tier, which CI
// runs too: go test ./... keeps within its budget (docs/testing.md).

package sessions

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/fswatch"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// Gemini CLI commits in the middle of a turn: the checkpoint is written at
// once and its transcript replaced by the whole turn's at AfterAgent, for
// both transcript containers.
func TestE2EGeminiMidTurnCommit(t *testing.T) {
	t.Parallel()
	for _, jsonl := range []bool{false, true} {
		r := e2etest.NewSessionRepo(t)
		g := e2etest.NewGeminiSession(r, "abcdef12-gemini-mid", jsonl)
		g.PlayTurn("First", map[string]string{"f.txt": "f\n"})
		g.MustHook("before-agent", "BeforeAgent", map[string]any{"prompt": "Second and commit"})
		g.Record(map[string]any{"id": "u2", "type": "user", "content": []any{map[string]any{"text": "Second and commit"}}})
		g.Record(map[string]any{"id": "g2", "type": "gemini", "content": "ok", "toolCalls": []any{map[string]any{"id": "w2", "name": "write_file", "args": map[string]any{"file_path": "s.txt"}}}})
		gittest.WriteFile(t, r.Dir, "s.txt", "s\n")
		r.MustGit("add", "f.txt", "s.txt")
		r.MustGit("commit", "-q", "-m", "Mid-turn")
		id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
		if id == "" {
			t.Fatalf("jsonl=%v: mid-turn commit not linked", jsonl)
		}
		g.Record(map[string]any{"id": "g3", "type": "gemini", "content": "Committed it"})
		g.MustHook("after-agent", "AfterAgent", map[string]any{})
		live, _ := os.ReadFile(g.Path)
		if stored := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, "0/full.jsonl")); stored != strings.TrimSuffix(string(live), "\n") {
			t.Errorf("jsonl=%v: transcript not finalized:\n%s", jsonl, stored)
		}
		m := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id, "0/metadata.json"))
		if ft := e2etest.AnyStrings(m["files_touched"]); !slices.Equal(ft, []string{"f.txt", "s.txt"}) {
			t.Errorf("jsonl=%v: files_touched %v", jsonl, ft)
		}
		if p := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, "0/prompt.txt")); p != "First\n\n---\n\nSecond and commit" {
			t.Errorf("jsonl=%v: prompt.txt %q", jsonl, p)
		}
		if subj := gittest.Git(t, r.Dir, "log", "-1", "--format=%s", "entire/checkpoints/v1"); subj != "Finalize transcript for Checkpoint: "+id {
			t.Errorf("jsonl=%v: last metadata commit %q", jsonl, subj)
		}
		e2etest.AssertStoreClean(t, r.Dir, id)
	}
}

// A linked worktree has its own shadow branch name and its sessions are
// condensed only by its own commits; the hooks in the common dir run there.
func TestE2ELinkedWorktree(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	wt := filepath.Join(t.TempDir(), "feature-wt")
	gittest.Git(t, r.Dir, "worktree", "add", "-q", "-b", "feature", wt)
	rw := r.WithSession("sess-wt")
	rw.Dir = wt

	r.PlayTurn("Change main", map[string]string{"main.txt": "main\n"})
	rw.PlayTurn("Change worktree", map[string]string{"wt.txt": "wt\n"})

	shadows := e2etest.ShadowBranches(t, r.Dir)
	if len(shadows) != 2 || shadows[0][:15] != shadows[1][:15] {
		t.Fatalf("shadow branches %v: want two names for the same base", shadows)
	}
	stw := e2etest.SessionState(t, r.Dir, "sess-wt")
	if stw["worktree_id"] != "feature-wt" || stw["worktree_path"] != wt {
		t.Errorf("worktree session state: id %v path %v", stw["worktree_id"], stw["worktree_path"])
	}
	if st := e2etest.SessionState(t, r.Dir, "sess-1"); st["worktree_path"] != r.Dir || st["worktree_id"] != nil && st["worktree_id"] != "" {
		t.Errorf("main session state: id %v path %v", st["worktree_id"], st["worktree_path"])
	}

	rw.MustGit("add", "wt.txt")
	rw.MustGit("commit", "-q", "-m", "Worktree work")
	id := e2etest.CheckpointAt(t, wt, "HEAD")
	if id == "" {
		t.Fatal("worktree commit not linked")
	}
	root := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id, "metadata.json"))
	if s, _ := root["sessions"].([]any); len(s) != 1 || root["branch"] != "feature" {
		t.Errorf("worktree checkpoint root %v", root)
	}
	if m := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id, "0/metadata.json")); m["session_id"] != "sess-wt" {
		t.Errorf("worktree checkpoint session %v", m["session_id"])
	}
	if left := e2etest.ShadowBranches(t, r.Dir); len(left) != 1 {
		t.Errorf("after the worktree commit, shadow branches %v (want the main one only)", left)
	}

	r.MustGit("add", "main.txt")
	r.MustGit("commit", "-q", "-m", "Main work")
	id2 := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id2 == "" || id2 == id {
		t.Fatalf("main commit checkpoint %q", id2)
	}
	if m := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id2, "0/metadata.json")); m["session_id"] != "sess-1" {
		t.Errorf("main checkpoint session %v", m["session_id"])
	}
	e2etest.AssertStoreClean(t, r.Dir, id, id2)
}

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

// Two sessions, and the active one commits only its own work mid-turn: the
// checkpoint holds that session alone, the other's work stays on a shadow
// branch and is linked by the next commit, and no stale shadow branch is
// left behind.
func TestE2EConcurrentSessionCommitsOwnWork(t *testing.T) {
	t.Parallel()
	a := e2etest.NewSessionRepo(t)
	b := a.WithSession("sess-b")
	b.PlayTurn("Write b", map[string]string{"b.txt": "b\n"})
	a.StartTurn(a.Dir, "Write a and commit it")
	a.WriteFiles(map[string]string{"a.txt": "a\n"})
	a.MustGit("add", "a.txt")
	a.MustGit("commit", "-q", "-m", "A only")
	id1 := e2etest.CheckpointAt(t, a.Dir, "HEAD")
	if id1 == "" {
		t.Fatal("agent commit not linked")
	}
	root := e2etest.ShowJSON(t, a.Dir, e2etest.CpPath(id1, "metadata.json"))
	if s, _ := root["sessions"].([]any); len(s) != 1 || e2etest.ShowJSON(t, a.Dir, e2etest.CpPath(id1, "0/metadata.json"))["session_id"] != "sess-1" {
		t.Errorf("first checkpoint root %v", root)
	}
	a.EndTurn(a.Dir, "Committed")
	if st := e2etest.SessionState(t, a.Dir, "sess-b"); !slices.Equal(e2etest.AnyStrings(st["files_touched"]), []string{"b.txt"}) {
		t.Errorf("sess-b after the other's commit: %v", st["files_touched"])
	}

	a.MustGit("add", "b.txt")
	a.MustGit("commit", "-q", "-m", "B")
	id2 := e2etest.CheckpointAt(t, a.Dir, "HEAD")
	if id2 == "" || id2 == id1 {
		t.Fatalf("second checkpoint %q", id2)
	}
	root = e2etest.ShowJSON(t, a.Dir, e2etest.CpPath(id2, "metadata.json"))
	if s, _ := root["sessions"].([]any); len(s) != 1 || e2etest.ShowJSON(t, a.Dir, e2etest.CpPath(id2, "0/metadata.json"))["session_id"] != "sess-b" {
		t.Errorf("second checkpoint root %v", root)
	}
	if left := e2etest.ShadowBranches(t, a.Dir); len(left) != 0 {
		t.Errorf("stale shadow branches: %v", left)
	}
	e2etest.AssertStoreClean(t, a.Dir, id1, id2)
}
