package commands

import (
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func TestCleanManualCommit(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	if out, _, code := r.Entire("clean"); code != 0 || out != "No orphaned items to clean up.\n" {
		t.Errorf("clean in a fresh repository: %d %q", code, out)
	}
	r.AgentTurn("Add a greeting", map[string]string{"hello.txt": "hello\n"})
	live := r.ShadowBranches()[0]
	// The shadow branch of a session in progress is not an orphan.
	if out, _, code := r.Entire("clean"); code != 0 || out != "No orphaned items to clean up.\n" {
		t.Errorf("clean with a live session: %d %q", code, out)
	}

	gittest.Git(t, r.Dir, "branch", "entire/abcdef1-e3b0c4", "HEAD")
	head := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	r.WriteState("old-1", `{"session_id":"old-1","base_commit":"`+head+`","worktree_id":"x","started_at":"2020-01-01T00:00:00Z","phase":"idle"}`)
	r.WriteState("old-active", `{"session_id":"old-active","base_commit":"`+head+`","worktree_id":"x","started_at":"2020-01-01T00:00:00Z","phase":"active"}`)

	out, _, code := r.Entire("clean")
	want := "Found 2 orphaned items:\n\nShadow branches (1):\n  entire/abcdef1-e3b0c4\n\nSession states (1):\n  old-1\n\nRun with --force to delete these items.\n"
	if code != 0 || out != want {
		t.Errorf("clean listing: %d\n%s\nwant\n%s", code, out, want)
	}
	if r.State("old-1") == nil {
		t.Fatal("clean without --force deleted a state")
	}
	out, _, code = r.Entire("clean", "--force")
	if code != 0 || !strings.HasPrefix(out, "Deleted 2 items:\n") || !strings.Contains(out, "entire/abcdef1-e3b0c4") {
		t.Errorf("clean --force: %d %q", code, out)
	}
	if r.State("old-1") != nil || r.State("old-active") == nil || r.State("sess-1") == nil {
		t.Error("clean --force deleted the wrong states")
	}
	if bs := r.ShadowBranches(); len(bs) != 1 || bs[0] != live {
		t.Errorf("branches after clean: %v", bs)
	}
	if out, _, _ := r.Entire("clean"); out != "No orphaned items to clean up.\n" {
		t.Errorf("clean after clean: %q", out)
	}
}

func TestCleanAutoCommitCheckpoints(t *testing.T) {
	t.Parallel()
	r := e2etest.NewAutoCommitRepo(t)
	r.AgentTurn("Add a greeting", map[string]string{"hello.txt": "hello\n"})
	kept := e2etest.CheckpointOf(t, gittest.Git(t, r.Dir, "log", "-1", "--format=%B"))
	r.AgentTurn("Add a farewell", map[string]string{"bye.txt": "bye\n"})
	dropped := e2etest.CheckpointOf(t, gittest.Git(t, r.Dir, "log", "-1", "--format=%B"))
	if out, _, _ := r.Entire("clean"); out != "No orphaned items to clean up.\n" {
		t.Errorf("clean with every checkpoint linked: %q", out)
	}

	gittest.Git(t, r.Dir, "reset", "-q", "--hard", "HEAD~1")
	out, _, code := r.Entire("clean")
	if code != 0 || !strings.Contains(out, "Checkpoint metadata (1):\n  "+dropped+"\n") || strings.Contains(out, kept) {
		t.Errorf("clean listing: %d\n%s", code, out)
	}
	out, _, code = r.Entire("clean", "--force")
	if code != 0 || !strings.Contains(out, "Deleted 1 items:") {
		t.Errorf("clean --force: %d %q", code, out)
	}
	tree := gittest.Git(t, r.Dir, "ls-tree", "-r", "--name-only", "entire/checkpoints/v1")
	if strings.Contains(tree, dropped[:2]+"/"+dropped[2:]) || !strings.Contains(tree, kept[:2]+"/"+kept[2:]) {
		t.Errorf("metadata tree after clean:\n%s", tree)
	}
	if c := gittest.Git(t, r.Dir, "log", "-1", "--format=%an <%ae>|%s", "entire/checkpoints/v1"); c != "Entire CLI <cli@entire.io>|Cleanup: removed 1 orphaned checkpoints" {
		t.Errorf("cleanup commit %q", c)
	}
	gittest.Fsck(t, r.Dir)
}
