package cli_test

import (
	"os"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func TestExplainEndToEnd(t *testing.T) {
	t.Parallel()
	r, id := e2etest.CommittedSession(t)
	run := func(args ...string) (string, string, int) {
		return e2etest.RunEntire(t, r.Dir, r.Env, "", append([]string{"explain"}, args...)...)
	}
	out, errOut, code := run("--commit", "HEAD", "--no-pager")
	if code != 0 {
		t.Fatalf("explain --commit HEAD: %d %s", code, errOut)
	}
	sha7 := gittest.Git(t, r.Dir, "rev-parse", "--short=7", "HEAD")
	for _, want := range []string{
		"Checkpoint: " + id + "\n",
		"Session: sess-1 (Claude Code)\n",
		"Author: Test User <test@example.com>\n",
		"Tokens: 30 (input 20, cache write 0, cache read 0, output 10; 2 API calls)\n",
		"Commits: (1)\n  " + sha7 + " 2026-01-02 Add greeting and farewell\n",
		"Intent: Please add a greeting\nOutcome: (not generated)\n",
		"Prompts: (2)\n  1. Please add a greeting\n  2. Add a farewell too\n",
		"Files: (2)\n  - bye.txt\n  - hello.txt\n",
		"Transcript (checkpoint scope):\n[User] Please add a greeting\n[Tool] Write: hello.txt\n\n[Assistant] Done with Please add a greeting\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain --commit HEAD lacks %q:\n%s", want, out)
		}
	}
	// The checkpoint by ID and by prefix gives the same view.
	if byID, _, code := run("--checkpoint", id, "--no-pager"); code != 0 || byID != out {
		t.Errorf("--checkpoint %s: exit %d, differs from --commit HEAD:\n%s", id, code, byID)
	}
	if byPrefix, _, code := run("-c", id[:6], "--no-pager"); code != 0 || byPrefix != out {
		t.Errorf("prefix: exit %d\n%s", code, byPrefix)
	}
	short, _, _ := run("--checkpoint", id, "--short")
	if strings.Contains(short, "Transcript") || !strings.HasSuffix(short, "Outcome: (not generated)\n") {
		t.Errorf("--short:\n%s", short)
	}
	if full, _, _ := run("--checkpoint", id, "--full"); !strings.Contains(full, "Transcript (full session):\n[User] Please add a greeting") {
		t.Errorf("--full:\n%s", full)
	}
	raw, _, _ := run("--checkpoint", id, "--raw-transcript")
	live, _ := os.ReadFile(r.Transcript)
	if raw != string(live) {
		t.Errorf("--raw-transcript differs from the live transcript")
	}
	list, _, code := run()
	if code != 0 || !strings.HasPrefix(list, "Branch: feature\nCheckpoints: 1\n\n["+id+"] \"Please add a greeting\"\n  01-02 03:04 ("+sha7+") Add greeting and farewell\n") {
		t.Errorf("list: %d\n%s", code, list)
	}
	if l, _, _ := run("--session", "nope"); !strings.Contains(l, "Checkpoints: 0\nFiltered by session: nope\n\nNo checkpoints found on this branch.") {
		t.Errorf("filtered list:\n%s", l)
	}
	// From another branch the checkpoint still explains; its commit is
	// found with --search-all.
	gittest.Git(t, r.Dir, "checkout", "-q", "main")
	if out, _, code := run("-c", id, "--short"); code != 0 || !strings.Contains(out, "Commits: No commits found on this branch (--search-all looks in every branch)\n") {
		t.Errorf("from main: %d\n%s", code, out)
	}
	if out, _, _ := run("-c", id, "--short", "--search-all"); !strings.Contains(out, "Commits: (1)\n  "+sha7+" ") {
		t.Errorf("--search-all from main:\n%s", out)
	}
	// Once merged, the checkpoint is listed on main, not on a new branch.
	gittest.Git(t, r.Dir, "merge", "-q", "--ff-only", "feature")
	if l, _, _ := run(); !strings.Contains(l, "Branch: main\nCheckpoints: 1\n") {
		t.Errorf("list on main after merge:\n%s", l)
	}
	gittest.Git(t, r.Dir, "checkout", "-q", "-b", "next")
	if l, _, _ := run(); !strings.HasPrefix(l, "Branch: next\nCheckpoints: 0\n") {
		t.Errorf("list on a new branch:\n%s", l)
	}
	gittest.Git(t, r.Dir, "checkout", "-q", "feature")
	// A commit without trailer.
	if out, _, code := run("--commit", "HEAD~1"); code != 0 || !strings.HasPrefix(out, "No associated Entire checkpoint") {
		t.Errorf("--commit HEAD~1: %d %q", code, out)
	}
}
