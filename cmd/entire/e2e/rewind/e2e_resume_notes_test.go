package rewind

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A second machine that only fetched the code and the metadata branch gets
// the session's notes and hides back with `entire resume` (issue 6).
func TestResumeBringsNotesAndHides(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	if _, errOut, code := r.Entire("note", "save", "layout", "src holds the app"); code != 0 {
		t.Fatal(errOut)
	}
	r.Hook("post-tool", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_big",
		"tool_input": map[string]any{"command": "cat log"}, "tool_response": map[string]any{"stdout": e2etest.BigOutput(), "stderr": ""}})
	r.AgentTurn("Add the app", map[string]string{"src/app.go": "package app\n"})
	gittest.Git(t, r.Dir, "add", "-A")
	if out, err := e2etest.GitCmd(t, r, "commit", "-q", "-m", "Add the app").CombinedOutput(); err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}
	bare := filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, r.Dir, "init", "-q", "--bare", bare)
	// The notes branch is not published: the notes come back from the
	// checkpoint itself; the hides branch is fetched by resume.
	gittest.Git(t, r.Dir, "push", "-q", "--no-verify", bare, "main", "entire/checkpoints/v1", "entire/hides/v1")

	clone := e2etest.SecondClone(t, bare, "entire/checkpoints/v1")
	env := []string{"ENTIRE_TEST_CLAUDE_PROJECT_DIR=" + t.TempDir()}
	_, errOut, code := e2etest.RunEntire(t, clone, env, "", "resume", "main")
	if code != 0 {
		t.Fatalf("resume: %d\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "Restored claude-code notes from the checkpoint.") {
		t.Errorf("resume stderr:\n%s", errOut)
	}
	if out, errOut, code := e2etest.RunEntire(t, clone, env, "", "note", "show", "layout"); code != 0 || !strings.Contains(out, "src holds the app") {
		t.Errorf("note in the clone: %d %q %s", code, out, errOut)
	}
	if out, errOut, code := e2etest.RunEntire(t, clone, env, "", "hide", "list"); code != 0 || !strings.Contains(out, "toolu_big") && !strings.Contains(out, "bash") {
		t.Errorf("hides in the clone: %d %q %s", code, out, errOut)
	}
	gittest.Fsck(t, clone)
}
