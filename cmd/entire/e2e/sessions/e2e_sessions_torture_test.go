//go:build torture

// The longest scenarios of this package run in the torture tier, which CI
// runs too: go test ./... keeps within its budget (docs/testing.md).

package sessions

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
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
