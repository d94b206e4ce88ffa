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

// The agent commits in the middle of its turn: the commit is linked and
// condensed at once with the transcript so far, and the checkpoint's
// transcript is replaced by the whole turn's at Stop (SPEC 5.2.6).
func TestE2EMidTurnCommit(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.StartTurn(r.Dir, "Add a feature and commit it")
	r.WriteFiles(map[string]string{"feature.go": "package feature\n"})
	// The agent runs git itself: no TTY (ENTIRE_TEST_TTY=0), session active.
	r.MustGit("add", "feature.go")
	r.MustGit("commit", "-q", "-m", "Add feature")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatalf("agent commit not linked:\n%s", gittest.Git(t, r.Dir, "log", "-1", "--format=%B"))
	}
	provisional := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, "0/full.jsonl"))
	st := e2etest.SessionState(t, r.Dir, "sess-1")
	if st["phase"] != "active" || !slices.Contains(e2etest.AnyStrings(st["turn_checkpoint_ids"]), id) {
		t.Errorf("state after mid-turn commit: phase %v turn_checkpoint_ids %v", st["phase"], st["turn_checkpoint_ids"])
	}

	r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "after-commit", "message": map[string]any{"id": "msg_after", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Committed as Add feature"}}}})
	r.EndTurn(r.Dir, "All done")

	final := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, "0/full.jsonl"))
	live, _ := os.ReadFile(r.Transcript)
	if final != strings.TrimSuffix(string(live), "\n") {
		t.Errorf("checkpoint transcript not finalized at turn end:\n%s", final)
	}
	if len(final) <= len(provisional) || !strings.Contains(final, "Committed as Add feature") {
		t.Errorf("finalized transcript lacks the end of the turn")
	}
	if subj := gittest.Git(t, r.Dir, "log", "-1", "--format=%s", "entire/checkpoints/v1"); subj != "Finalize transcript for Checkpoint: "+id {
		t.Errorf("last metadata commit %q", subj)
	}
	if p := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, "0/prompt.txt")); p != "Add a feature and commit it" {
		t.Errorf("prompt.txt %q", p)
	}
	st = e2etest.SessionState(t, r.Dir, "sess-1")
	if st["phase"] != "idle" || len(e2etest.AnyStrings(st["turn_checkpoint_ids"])) != 0 || st["last_checkpoint_id"] != id {
		t.Errorf("state after turn end: phase %v turn_checkpoint_ids %v last %v", st["phase"], st["turn_checkpoint_ids"], st["last_checkpoint_id"])
	}
	if b := e2etest.ShadowBranches(t, r.Dir); len(b) != 0 {
		t.Errorf("shadow branches left: %v", b)
	}
	e2etest.AssertStoreClean(t, r.Dir, id)
}

// Two sessions in one worktree share the shadow branch and one user commit
// condenses both into one checkpoint, slots 0/ and 1/.
func TestE2EConcurrentSessions(t *testing.T) {
	t.Parallel()
	r1 := e2etest.NewSessionRepo(t)
	r2 := r1.WithSession("sess-2")
	r1.MustHookIn(r1.Dir, "session-start", map[string]any{"source": "startup"})
	r1.PlayTurn("Write a", map[string]string{"a.txt": "a\n"})
	out, _, code := r2.HookIn(r2.Dir, "session-start", map[string]any{"source": "startup"})
	if code != 0 || !strings.Contains(out, "1 other active conversation(s) in this workspace will also be included.") {
		t.Errorf("second session-start: %d %q", code, out)
	}
	r2.PlayTurn("Write b", map[string]string{"b.txt": "b\n"})

	shadows := e2etest.ShadowBranches(t, r1.Dir)
	if len(shadows) != 1 {
		t.Fatalf("shadow branches %v, want one shared", shadows)
	}
	if log := gittest.Git(t, r1.Dir, "log", "--format=%(trailers:key=Entire-Session,valueonly)", shadows[0]); !strings.Contains(log, "sess-1") || !strings.Contains(log, "sess-2") {
		t.Errorf("shadow commits lack a session trailer:\n%s", log)
	}

	r1.MustGit("add", "a.txt", "b.txt")
	r1.MustGit("commit", "-q", "-m", "Both sessions' work")
	id := e2etest.CheckpointAt(t, r1.Dir, "HEAD")
	if id == "" {
		t.Fatal("commit not linked")
	}
	root := e2etest.ShowJSON(t, r1.Dir, e2etest.CpPath(id, "metadata.json"))
	sessions, _ := root["sessions"].([]any)
	if len(sessions) != 2 || root["checkpoints_count"] != float64(2) {
		t.Fatalf("root metadata %v", root)
	}
	if ft := e2etest.AnyStrings(root["files_touched"]); !slices.Equal(ft, []string{"a.txt", "b.txt"}) {
		t.Errorf("root files_touched %v", ft)
	}
	got := map[string]string{}
	for slot := range 2 {
		s := string(rune('0' + slot))
		m := e2etest.ShowJSON(t, r1.Dir, e2etest.CpPath(id, s+"/metadata.json"))
		sid, _ := m["session_id"].(string)
		got[sid] = s
		if want := "/" + id[:2] + "/" + id[2:] + "/" + s + "/metadata.json"; sessions[slot].(map[string]any)["metadata"] != want {
			t.Errorf("sessions[%d].metadata = %v, want %s", slot, sessions[slot].(map[string]any)["metadata"], want)
		}
		prompt := gittest.Git(t, r1.Dir, "show", e2etest.CpPath(id, s+"/prompt.txt"))
		if (sid == "sess-1" && prompt != "Write a") || (sid == "sess-2" && prompt != "Write b") {
			t.Errorf("slot %s (%s) prompt %q", s, sid, prompt)
		}
	}
	if len(got) != 2 || got["sess-1"] == "" || got["sess-2"] == "" {
		t.Errorf("slots by session: %v", got)
	}
	if b := e2etest.ShadowBranches(t, r1.Dir); len(b) != 0 {
		t.Errorf("shadow branch not cleaned up: %v", b)
	}
	for _, id2 := range []string{"sess-1", "sess-2"} {
		if st := e2etest.SessionState(t, r1.Dir, id2); st["last_checkpoint_id"] != id || st["base_commit"] != gittest.Git(t, r1.Dir, "rev-parse", "HEAD") {
			t.Errorf("%s state after commit: %v", id2, st)
		}
	}
	e2etest.AssertStoreClean(t, r1.Dir, id)
}

// Hooks run with the working directory in a subdirectory: everything is
// resolved against the repository root, files in sibling directories
// included.
func TestE2ESubdirectoryCwd(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	sub := filepath.Join(r.Dir, "pkg", "app")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r.StartTurn(sub, "Edit across directories")
	r.WriteFiles(map[string]string{"pkg/app/main.go": "package main\n", "docs/notes.md": "notes\n"})
	r.EndTurn(sub, "Edited")

	if _, err := os.Stat(filepath.Join(sub, ".entire")); err == nil {
		t.Errorf("hooks wrote .entire/ in the working directory")
	}
	st := e2etest.SessionState(t, r.Dir, "sess-1")
	if ft := e2etest.AnyStrings(st["files_touched"]); !slices.Equal(ft, []string{"docs/notes.md", "pkg/app/main.go"}) {
		t.Errorf("files_touched %v", ft)
	}
	shadows := e2etest.ShadowBranches(t, r.Dir)
	if len(shadows) != 1 {
		t.Fatalf("shadow branches %v", shadows)
	}
	tree := gittest.Git(t, r.Dir, "ls-tree", "-r", "--name-only", shadows[0])
	for _, want := range []string{"docs/notes.md", "pkg/app/main.go", ".entire/metadata/sess-1/full.jsonl"} {
		if !strings.Contains(tree, want) {
			t.Errorf("shadow tree lacks %s:\n%s", want, tree)
		}
	}

	if out, err := r.GitIn(sub, nil, "add", "main.go", "../../docs/notes.md"); err != nil {
		t.Fatal(err, out)
	}
	if out, err := r.GitIn(sub, nil, "commit", "-q", "-m", "From a subdirectory"); err != nil {
		t.Fatal(err, out)
	}
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("commit from a subdirectory not linked")
	}
	m := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id, "0/metadata.json"))
	if ft := e2etest.AnyStrings(m["files_touched"]); !slices.Equal(ft, []string{"docs/notes.md", "pkg/app/main.go"}) {
		t.Errorf("checkpoint files_touched %v", ft)
	}
	e2etest.AssertStoreClean(t, r.Dir, id)
}

// The user commits part of the agent's work: the rest is carried forward
// onto the new commit's shadow branch, and committing it later (after the
// session ended, without another turn) is linked to a checkpoint of its own.
func TestE2EPartialCommitCarriesForward(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Write three files", map[string]string{"one.txt": "1\n", "two.txt": "2\n", "three.txt": "3\n"})
	r.MustGit("add", "one.txt")
	r.MustGit("commit", "-q", "-m", "One")
	id1 := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id1 == "" {
		t.Fatal("first commit not linked")
	}
	head := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	shadows := e2etest.ShadowBranches(t, r.Dir)
	if len(shadows) != 1 || !strings.HasPrefix(shadows[0], "entire/"+head[:7]+"-") {
		t.Fatalf("shadow branches after the partial commit %v (HEAD %s)", shadows, head[:7])
	}
	if s := gittest.Git(t, r.Dir, "log", "-1", "--format=%s", shadows[0]); s != "carry forward: uncommitted session files" {
		t.Errorf("carry-forward commit subject %q", s)
	}
	st := e2etest.SessionState(t, r.Dir, "sess-1")
	if ft := e2etest.AnyStrings(st["files_touched"]); !slices.Equal(ft, []string{"three.txt", "two.txt"}) {
		t.Errorf("files_touched after the partial commit %v", ft)
	}
	r.MustHookIn(r.Dir, "session-end", map[string]any{"reason": "prompt_input_exit"})

	r.MustGit("add", "two.txt", "three.txt")
	r.MustGit("commit", "-q", "-m", "The rest")
	id2 := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id2 == "" || id2 == id1 {
		t.Fatalf("second commit checkpoint %q (first %s)", id2, id1)
	}
	m := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id2, "0/metadata.json"))
	if ft := e2etest.AnyStrings(m["files_touched"]); !slices.Equal(ft, []string{"three.txt", "two.txt"}) || m["session_id"] != "sess-1" {
		t.Errorf("second checkpoint: session %v files %v", m["session_id"], ft)
	}
	if b := e2etest.ShadowBranches(t, r.Dir); len(b) != 0 {
		t.Errorf("shadow branches left: %v", b)
	}
	e2etest.AssertStoreClean(t, r.Dir, id1, id2)
}

// Files the user discarded are not carried forward: a file the agent
// wrote that the user deletes (or reverts to the committed content) before
// committing the rest leaves nothing to link, so no shadow branch is left
// behind (it would block a later `git push --mirror`).
func TestE2EDiscardedFilesNotCarriedForward(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Write files", map[string]string{"keep.txt": "k\n", "scratch.txt": "s\n", "README.md": "agent's readme\n"})
	if err := os.Remove(filepath.Join(r.Dir, "scratch.txt")); err != nil {
		t.Fatal(err)
	}
	r.MustGit("checkout", "--", "README.md")
	r.MustGit("add", "-A")
	r.MustGit("commit", "-q", "-m", "Keep one")
	if e2etest.CheckpointAt(t, r.Dir, "HEAD") == "" {
		t.Fatal("commit not linked")
	}
	if b := e2etest.ShadowBranches(t, r.Dir); len(b) != 0 {
		t.Errorf("shadow branches left for discarded files: %v", b)
	}
	if ft := e2etest.SessionState(t, r.Dir, "sess-1")["files_touched"]; ft != nil {
		t.Errorf("files_touched after the commit %v", ft)
	}
}

// An agent that changes a file through its shell tool and commits it in
// the same turn: the commit links to a checkpoint of the turn so far
// (measured against the turn's start, whichever tool made the change),
// and the turn's end completes it. A file the user changed before the
// turn and commits during it is not the turn's.
func TestE2EMidTurnCommitOfShellWork(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	gittest.WriteFile(t, r.Dir, "user.txt", "the user's, before the turn\n")
	r.StartTurn(r.Dir, "Generate the table and commit it")
	// The user's own file, committed during the turn: not linked.
	r.MustGit("add", "user.txt")
	r.MustGit("commit", "-q", "-m", "User work")
	if id := e2etest.CheckpointAt(t, r.Dir, "HEAD"); id != "" {
		t.Errorf("the user's commit during the turn got checkpoint %s", id)
	}
	// The agent's shell writes table.txt; no Write tool names it.
	gittest.WriteFile(t, r.Dir, "table.txt", "1 2 3\n")
	r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "a-shell", "message": map[string]any{
		"id": "msg_shell", "role": "assistant",
		"content": []any{map[string]any{"type": "tool_use", "id": "toolu_shell", "name": "Bash", "input": map[string]any{"command": "seq 1 3 | paste -sd' ' > table.txt"}}},
		"usage":   map[string]any{"input_tokens": 10, "output_tokens": 5},
	}})
	r.MustGit("add", "table.txt")
	r.MustGit("commit", "-q", "-m", "Add the table")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatalf("the agent's commit of shell-made work is not linked:\n%s", gittest.Git(t, r.Dir, "log", "-1", "--format=%B"))
	}
	if p := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, "0/prompt.txt")); p != "Generate the table and commit it" {
		t.Errorf("prompt.txt %q", p)
	}
	r.EndTurn(r.Dir, "Committed the table.")
	full := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, "0/full.jsonl"))
	if !strings.Contains(full, "Committed the table.") {
		t.Error("the turn's end did not complete the checkpoint's transcript")
	}
	out, errOut, code := r.Entire("explain", "--commit", "HEAD")
	if code != 0 || !strings.Contains(out, "Checkpoint: "+id) || !strings.Contains(out, "Generate the table and commit it") {
		t.Errorf("explain --commit HEAD: exit %d\n%s%s", code, out, errOut)
	}
}
