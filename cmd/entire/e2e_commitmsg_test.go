package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// An agent commits with `git commit -m` while its turn runs, with no
// terminal (ENTIRE_TEST_TTY=0): the trailer is added without asking.
func TestE2EAgentCommitNoTTY(t *testing.T) {
	t.Parallel()
	r := newSessionRepo(t)
	r.startTurn(r.dir, "Commit your work")
	r.writeFiles(map[string]string{"work.txt": "work\n"})
	r.mustGit("add", "work.txt")
	out, err := r.gitIn(r.dir, []string{"ENTIRE_TEST_TTY=0"}, "commit", "-m", "Agent commit")
	if err != nil {
		t.Fatal(err, out)
	}
	msg := gittest.Git(t, r.dir, "log", "-1", "--format=%B")
	id := checkpointAt(t, r.dir, "HEAD")
	if id == "" || !strings.HasPrefix(msg, "Agent commit\n\nEntire-Checkpoint: "+id) {
		t.Fatalf("agent commit message:\n%s", msg)
	}
	r.endTurn(r.dir, "Committed")
	assertStoreClean(t, r.dir, id)

	// A commit the agent makes of files its session never touched holds
	// none of its work: no trailer, which would point to no checkpoint.
	r.startTurn(r.dir, "Commit the README")
	gittest.WriteFile(t, r.dir, "README.md", "edited by hand\n")
	r.mustGit("add", "README.md")
	if out, err := r.gitIn(r.dir, []string{"ENTIRE_TEST_TTY=0"}, "commit", "-m", "Docs"); err != nil {
		t.Fatal(err, out)
	}
	if id := checkpointAt(t, r.dir, "HEAD"); id != "" {
		t.Errorf("a commit without the session's work got trailer %s (checkpoint stored: %v)", id, hasCheckpoint(t, r.dir, id))
	}
}

// editorScript writes a GIT_EDITOR script that saves the message git
// offers in capture, then puts subject (if any) above it.
func editorScript(t *testing.T, capture, subject string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "editor.sh")
	body := "#!/bin/sh\ncp \"$1\" '" + capture + "'\n"
	if subject != "" {
		body += "{ printf '%s' '" + subject + "'; cat '" + capture + "'; } > \"$1\"\n"
	}
	writeScript(t, p, body)
	return p
}

// The editor flow: the user runs `git commit` without -m. The editor shows
// the trailer with the explanatory comment lines above git's own; the
// commit keeps the trailer and is condensed.
func TestE2EEditorCommit(t *testing.T) {
	t.Parallel()
	r := newSessionRepo(t)
	r.playTurn("Please write the notes file", map[string]string{"notes.txt": "notes\n"})
	r.mustGit("add", "notes.txt")
	capture := filepath.Join(t.TempDir(), "offered")
	out, err := r.gitIn(r.dir, []string{"GIT_EDITOR=" + editorScript(t, capture, "Write notes")}, "commit")
	if err != nil {
		t.Fatal(err, out)
	}
	offered, _ := os.ReadFile(capture)
	id := checkpointAt(t, r.dir, "HEAD")
	if id == "" {
		t.Fatalf("editor commit not linked:\n%s", gittest.Git(t, r.dir, "log", "-1", "--format=%B"))
	}
	want := "\n\nEntire-Checkpoint: " + id + "\n" +
		"# Remove the Entire-Checkpoint trailer above if you don't want to link this commit to Claude Code session context.\n" +
		"# Last Prompt: Please write the notes file\n" +
		"# The trailer will be added to your next commit based on this branch.\n\n#"
	if !strings.HasPrefix(string(offered), want) {
		t.Errorf("message offered in the editor:\n%s\nwant prefix:\n%s", offered, want)
	}
	if msg := gittest.Git(t, r.dir, "log", "-1", "--format=%B"); msg != "Write notes\n\nEntire-Checkpoint: "+id {
		t.Errorf("committed message %q", msg)
	}
	assertStoreClean(t, r.dir, id)
}

// The user leaves the editor without writing a message: commit-msg removes
// the lone trailer, git aborts the empty commit, and the session's work
// is still waiting for the next commit.
func TestE2EEditorAbortRemovesLoneTrailer(t *testing.T) {
	t.Parallel()
	r := newSessionRepo(t)
	r.playTurn("Write x", map[string]string{"x.txt": "x\n"})
	r.mustGit("add", "x.txt")
	head := gittest.Git(t, r.dir, "rev-parse", "HEAD")
	shadows := shadowBranches(t, r.dir)
	capture := filepath.Join(t.TempDir(), "offered")
	out, err := r.gitIn(r.dir, []string{"GIT_EDITOR=" + editorScript(t, capture, "")}, "commit")
	if err == nil || !strings.Contains(out, "empty commit message") {
		t.Fatalf("git commit with only the trailer: err %v\n%s", err, out)
	}
	if offered, _ := os.ReadFile(capture); !strings.Contains(string(offered), "Entire-Checkpoint: ") {
		t.Errorf("editor was not offered a trailer:\n%s", offered)
	}
	if h := gittest.Git(t, r.dir, "rev-parse", "HEAD"); h != head {
		t.Fatal("a commit was made")
	}
	if s := shadowBranches(t, r.dir); len(s) != 1 || s[0] != shadows[0] {
		t.Errorf("shadow branches %v, want %v", s, shadows)
	}
	// The next real commit is linked and condensed.
	r.mustGit("commit", "-q", "-m", "Write x")
	id := checkpointAt(t, r.dir, "HEAD")
	if id == "" {
		t.Fatal("commit after the abort not linked")
	}
	assertStoreClean(t, r.dir, id)
}

// `git commit --amend` keeps the trailer, and an amend that takes a message
// without one (`-C <other>`) gets the session's checkpoint back; neither
// writes a new checkpoint.
func TestE2EAmendKeepsTrailer(t *testing.T) {
	t.Parallel()
	r := newSessionRepo(t)
	r.playTurn("Write y", map[string]string{"y.txt": "y\n"})
	r.mustGit("add", "y.txt")
	r.mustGit("commit", "-q", "-m", "Write y")
	id := checkpointAt(t, r.dir, "HEAD")
	if id == "" {
		t.Fatal("commit not linked")
	}
	cps := gittest.Git(t, r.dir, "rev-list", "--count", "entire/checkpoints/v1")

	gittest.WriteFile(t, r.dir, "y.txt", "y2\n")
	r.mustGit("commit", "-q", "-a", "--amend", "--no-edit")
	if got := checkpointAt(t, r.dir, "HEAD"); got != id {
		t.Errorf("after --amend --no-edit: trailer %q, want %s", got, id)
	}
	r.mustGit("commit", "-q", "--amend", "-C", "HEAD~1")
	msg := gittest.Git(t, r.dir, "log", "-1", "--format=%B")
	if got := checkpointAt(t, r.dir, "HEAD"); got != id || !strings.HasPrefix(msg, "enable entire\n") {
		t.Errorf("after --amend -C HEAD~1: trailer %q, want %s restored:\n%s", got, id, msg)
	}
	if n := gittest.Git(t, r.dir, "rev-list", "--count", "entire/checkpoints/v1"); n != cps {
		t.Errorf("amends wrote to the metadata branch (%s -> %s commits)", cps, n)
	}
	assertStoreClean(t, r.dir, id)
}

// Amending more agent work into a linked commit keeps its checkpoint ID,
// and the checkpoint then covers the whole amended commit: the earlier
// prompts, files and steps are merged with the new ones, not replaced.
func TestE2EAmendWithNewAgentWork(t *testing.T) {
	t.Parallel()
	r := newSessionRepo(t)
	r.playTurn("Write a", map[string]string{"a.txt": "a\n"})
	r.mustGit("add", "a.txt")
	r.mustGit("commit", "-q", "-m", "A")
	id := checkpointAt(t, r.dir, "HEAD")
	if id == "" {
		t.Fatal("commit not linked")
	}
	r.playTurn("Write b", map[string]string{"b.txt": "b\n"})
	r.mustGit("add", "b.txt")
	r.mustGit("commit", "-q", "--amend", "--no-edit")
	if got := checkpointAt(t, r.dir, "HEAD"); got != id {
		t.Fatalf("amended commit trailer %q, want %s", got, id)
	}
	m := showJSON(t, r.dir, cpPath(id, "0/metadata.json"))
	if ft := anyStrings(m["files_touched"]); !slices.Equal(ft, []string{"a.txt", "b.txt"}) || m["checkpoints_count"] != float64(2) {
		t.Errorf("checkpoint after amend: files %v count %v", ft, m["checkpoints_count"])
	}
	if tu, _ := m["token_usage"].(map[string]any); tu["input_tokens"] != float64(20) {
		t.Errorf("token_usage after amend %v", m["token_usage"])
	}
	if p := gittest.Git(t, r.dir, "show", cpPath(id, "0/prompt.txt")); p != "Write a\n\n---\n\nWrite b" {
		t.Errorf("prompt.txt after amend %q", p)
	}
	if root := showJSON(t, r.dir, cpPath(id, "metadata.json")); len(root["sessions"].([]any)) != 1 {
		t.Errorf("root after amend %v", root)
	}
	live, _ := os.ReadFile(r.transcript)
	if tr := gittest.Git(t, r.dir, "show", cpPath(id, "0/full.jsonl")); tr != strings.TrimSuffix(string(live), "\n") {
		t.Errorf("transcript after amend is not the whole session's")
	}
	assertStoreClean(t, r.dir, id)
}
