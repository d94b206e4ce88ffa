//go:build torture

package rewind

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// Resuming a branch whose commits carry the checkpoints of two sessions
// restores the latest checkpoint's session, says so, and prints the rewind
// that restores the other one; that command works.
func TestResumeNamesOtherSessions(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	gittest.Git(t, r.Dir, "checkout", "-q", "-b", "feature")
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.AgentTurn("Please add a greeting", map[string]string{"hello.txt": "hello\n"})
	r.MustGit("add", "hello.txt")
	r.MustGit("commit", "-q", "-m", "Add greeting")
	first := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	s2 := r.WithSession("sess-2")
	s2.Hook("session-start", map[string]any{"source": "startup"})
	s2.AgentTurn("Add a farewell", map[string]string{"bye.txt": "bye\n"})
	r.MustGit("add", "bye.txt")
	r.MustGit("commit", "-q", "-m", "Add farewell")
	if a, b := e2etest.CheckpointAt(t, r.Dir, first), e2etest.CheckpointAt(t, r.Dir, "HEAD"); a == "" || b == "" || a == b {
		t.Fatalf("checkpoints %q %q", a, b)
	}
	remote := e2etest.Publish(t, r)
	clone := e2etest.SecondClone(t, remote, "feature", "entire/checkpoints/v1")
	projects := t.TempDir()
	env := []string{"ENTIRE_TEST_CLAUDE_PROJECT_DIR=" + projects}
	_, errOut, code := e2etest.RunEntire(t, clone, env, "", "resume", "feature")
	if code != 0 {
		t.Fatalf("resume: %d %s", code, errOut)
	}
	head := gittest.Git(t, clone, "rev-parse", "HEAD")
	want := "Restored the sessions of the latest checkpoint (commit " + head[:7] + ").\n" +
		"1 older session on 'feature' was not restored; to restore it, run:\n" +
		"  entire rewind --to " + first[:7] + " --logs-only  # sess-1: Please add a greeting\n"
	if !strings.Contains(errOut, "Session: sess-2\n") || !strings.Contains(errOut, want) {
		t.Fatalf("resume output:\n%s\nwant:\n%s", errOut, want)
	}
	if _, err := os.Stat(filepath.Join(projects, "sess-1.jsonl")); err == nil {
		t.Fatal("sess-1 restored by resume")
	}
	if _, errOut, code := e2etest.RunEntire(t, clone, env, "", "rewind", "--to", first[:7], "--logs-only"); code != 0 || !strings.Contains(errOut, "claude -r sess-1") {
		t.Fatalf("the printed rewind: %d %s", code, errOut)
	}
	for _, id := range []string{"sess-1", "sess-2"} {
		if _, err := os.Stat(filepath.Join(projects, id+".jsonl")); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	// A branch with one session says nothing more.
	r1, _ := e2etest.CommittedSession(t)
	clone1 := e2etest.SecondClone(t, e2etest.Publish(t, r1), "feature", "entire/checkpoints/v1")
	if _, errOut, code := e2etest.RunEntire(t, clone1, []string{"ENTIRE_TEST_CLAUDE_PROJECT_DIR=" + t.TempDir()}, "", "resume", "feature"); code != 0 || strings.Contains(errOut, "not restored") {
		t.Errorf("single session: %d %s", code, errOut)
	}
}
