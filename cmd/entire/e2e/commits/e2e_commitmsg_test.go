package commits

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// An agent commits with `git commit -m` while its turn runs, with no
// terminal (ENTIRE_TEST_TTY=0): the trailer is added without asking.
func TestE2EAgentCommitNoTTY(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.StartTurn(r.Dir, "Commit your work")
	r.WriteFiles(map[string]string{"work.txt": "work\n"})
	r.MustGit("add", "work.txt")
	out, err := r.GitIn(r.Dir, []string{"ENTIRE_TEST_TTY=0"}, "commit", "-m", "Agent commit")
	if err != nil {
		t.Fatal(err, out)
	}
	msg := gittest.Git(t, r.Dir, "log", "-1", "--format=%B")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" || !strings.HasPrefix(msg, "Agent commit\n\nEntire-Checkpoint: "+id) {
		t.Fatalf("agent commit message:\n%s", msg)
	}
	r.EndTurn(r.Dir, "Committed")
	e2etest.AssertStoreClean(t, r.Dir, id)

	// A commit the agent makes of a file its session never touched, as
	// it was before the turn began, holds none of its work: no trailer,
	// which would point to no checkpoint. (A change made during the turn
	// would be the turn's, whichever tool made it: see
	// TestE2EMidTurnCommitOfShellWork.)
	gittest.WriteFile(t, r.Dir, "README.md", "edited by hand\n")
	r.StartTurn(r.Dir, "Commit the README")
	r.MustGit("add", "README.md")
	if out, err := r.GitIn(r.Dir, []string{"ENTIRE_TEST_TTY=0"}, "commit", "-m", "Docs"); err != nil {
		t.Fatal(err, out)
	}
	if id := e2etest.CheckpointAt(t, r.Dir, "HEAD"); id != "" {
		t.Errorf("a commit without the session's work got trailer %s (checkpoint stored: %v)", id, e2etest.HasCheckpoint(t, r.Dir, id))
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
	e2etest.WriteScript(t, p, body)
	return p
}

// The editor flow: the user runs `git commit` without -m. The editor shows
// the trailer with the explanatory comment lines above git's own; the
// commit keeps the trailer and is condensed.
func TestE2EEditorCommit(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Please write the notes file", map[string]string{"notes.txt": "notes\n"})
	r.MustGit("add", "notes.txt")
	capture := filepath.Join(t.TempDir(), "offered")
	out, err := r.GitIn(r.Dir, []string{"GIT_EDITOR=" + editorScript(t, capture, "Write notes")}, "commit")
	if err != nil {
		t.Fatal(err, out)
	}
	offered, _ := os.ReadFile(capture)
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatalf("editor commit not linked:\n%s", gittest.Git(t, r.Dir, "log", "-1", "--format=%B"))
	}
	want := "\n\nEntire-Checkpoint: " + id + "\n" +
		"# Remove the Entire-Checkpoint trailer above if you don't want to link this commit to Claude Code session context.\n" +
		"# Last Prompt: Please write the notes file\n" +
		"# The trailer will be added to your next commit based on this branch.\n\n#"
	if !strings.HasPrefix(string(offered), want) {
		t.Errorf("message offered in the editor:\n%s\nwant prefix:\n%s", offered, want)
	}
	if msg := gittest.Git(t, r.Dir, "log", "-1", "--format=%B"); msg != "Write notes\n\nEntire-Checkpoint: "+id {
		t.Errorf("committed message %q", msg)
	}
	e2etest.AssertStoreClean(t, r.Dir, id)
}

// The user leaves the editor without writing a message: commit-msg removes
// the lone trailer, git aborts the empty commit, and the session's work
// is still waiting for the next commit.
func TestE2EEditorAbortRemovesLoneTrailer(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Write x", map[string]string{"x.txt": "x\n"})
	r.MustGit("add", "x.txt")
	head := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	shadows := e2etest.ShadowBranches(t, r.Dir)
	capture := filepath.Join(t.TempDir(), "offered")
	out, err := r.GitIn(r.Dir, []string{"GIT_EDITOR=" + editorScript(t, capture, "")}, "commit")
	if err == nil || !strings.Contains(out, "empty commit message") {
		t.Fatalf("git commit with only the trailer: err %v\n%s", err, out)
	}
	if offered, _ := os.ReadFile(capture); !strings.Contains(string(offered), "Entire-Checkpoint: ") {
		t.Errorf("editor was not offered a trailer:\n%s", offered)
	}
	if h := gittest.Git(t, r.Dir, "rev-parse", "HEAD"); h != head {
		t.Fatal("a commit was made")
	}
	if s := e2etest.ShadowBranches(t, r.Dir); len(s) != 1 || s[0] != shadows[0] {
		t.Errorf("shadow branches %v, want %v", s, shadows)
	}
	// The next real commit is linked and condensed.
	r.MustGit("commit", "-q", "-m", "Write x")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("commit after the abort not linked")
	}
	e2etest.AssertStoreClean(t, r.Dir, id)
}

// `git commit --amend` keeps the trailer, and an amend that takes a message
// without one (`-C <other>`) gets the session's checkpoint back; neither
// writes a new checkpoint.
func TestE2EAmendKeepsTrailer(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Write y", map[string]string{"y.txt": "y\n"})
	r.MustGit("add", "y.txt")
	r.MustGit("commit", "-q", "-m", "Write y")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("commit not linked")
	}
	cps := gittest.Git(t, r.Dir, "rev-list", "--count", "entire/checkpoints/v1")

	gittest.WriteFile(t, r.Dir, "y.txt", "y2\n")
	r.MustGit("commit", "-q", "-a", "--amend", "--no-edit")
	if got := e2etest.CheckpointAt(t, r.Dir, "HEAD"); got != id {
		t.Errorf("after --amend --no-edit: trailer %q, want %s", got, id)
	}
	r.MustGit("commit", "-q", "--amend", "-C", "HEAD~1")
	msg := gittest.Git(t, r.Dir, "log", "-1", "--format=%B")
	if got := e2etest.CheckpointAt(t, r.Dir, "HEAD"); got != id || !strings.HasPrefix(msg, "enable entire\n") {
		t.Errorf("after --amend -C HEAD~1: trailer %q, want %s restored:\n%s", got, id, msg)
	}
	if n := gittest.Git(t, r.Dir, "rev-list", "--count", "entire/checkpoints/v1"); n != cps {
		t.Errorf("amends wrote to the metadata branch (%s -> %s commits)", cps, n)
	}
	e2etest.AssertStoreClean(t, r.Dir, id)
}
