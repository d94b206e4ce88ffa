package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// committedSession plays two turns on a feature branch and commits them; it
// returns the repository and the checkpoint ID of the commit.
func committedSession(t *testing.T) (*SessionRepo, string) {
	t.Helper()
	r := NewSessionRepo(t)
	gittest.Git(t, r.Dir, "checkout", "-q", "-b", "feature")
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.AgentTurn("Please add a greeting", map[string]string{"hello.txt": "hello\n"})
	r.AgentTurn("Add a farewell too", map[string]string{"bye.txt": "bye\n"})
	gittest.Git(t, r.Dir, "add", "hello.txt", "bye.txt")
	if out, err := GitCmd(t, r, "commit", "-q", "-m", "Add greeting and farewell").CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	id := trailerID(t, r.Dir, "HEAD")
	return r, id
}

func trailerID(t *testing.T, dir, rev string) string {
	t.Helper()
	for _, l := range strings.Split(gittest.Git(t, dir, "log", "-1", "--format=%B", rev), "\n") {
		if v, ok := strings.CutPrefix(l, "Entire-Checkpoint: "); ok {
			return v
		}
	}
	t.Fatalf("commit %s has no checkpoint trailer", rev)
	return ""
}

func TestExplainEndToEnd(t *testing.T) {
	t.Parallel()
	r, id := committedSession(t)
	run := func(args ...string) (string, string, int) {
		return RunEntire(t, r.Dir, r.Env, "", append([]string{"explain"}, args...)...)
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

func TestExplainBadInput(t *testing.T) {
	t.Parallel()
	r, id := committedSession(t)
	before := gittest.Git(t, r.Dir, "for-each-ref")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--checkpoint", "ffffffffffff"}, "checkpoint not found: ffffffffffff"},
		{[]string{"--checkpoint", "zz"}, "checkpoint not found: zz"},
		{[]string{"--commit", "no-such-rev"}, `unknown commit "no-such-rev"`},
		{[]string{"--commit", "HEAD", "--checkpoint", id}, "cannot specify multiple of --session, --commit, --checkpoint"},
		{[]string{"--short", "--full", "-c", id}, "mutually exclusive"},
		{[]string{"--generate"}, "--generate requires --checkpoint"},
		{[]string{"--force", "-c", id}, "--force requires --generate"},
		{[]string{"--raw-transcript"}, "--raw-transcript requires --checkpoint"},
		{[]string{"extra"}, "Hint: use --checkpoint, --session, or --commit"},
		{[]string{"-c", id, "--generate"}, "the claude command is not installed"},
	} {
		env := r.Env
		if tc.args[len(tc.args)-1] == "--generate" {
			env = append(env[:len(env):len(env)], "PATH="+emptyPath(t))
		}
		_, errOut, code := RunEntire(t, r.Dir, env, "", append([]string{"explain"}, tc.args...)...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("explain %v: exit %d, stderr %q (want %q)", tc.args, code, errOut, tc.want)
		}
	}
	if after := gittest.Git(t, r.Dir, "for-each-ref"); after != before {
		t.Errorf("bad input changed refs:\n%s\n%s", before, after)
	}
}

// emptyPath is a PATH with git but without any agent CLI.
func emptyPath(t *testing.T) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not on PATH")
	}
	dir := t.TempDir()
	if err := os.Symlink(git, filepath.Join(dir, "git")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestExplainFlagParsing(t *testing.T) {
	t.Parallel()
	f, _, _ := testFactory(t.TempDir(), nil)
	var got *explainOptions
	cmd := newExplainCmd(f, func(_ context.Context, o *explainOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"-c", "abc", "-s", "--no-pager", "--search-all"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Checkpoint != "abc" || !got.Short || !got.NoPager || !got.SearchAll || got.Full {
		t.Errorf("options %+v", got)
	}
}

func TestExplainGenerate(t *testing.T) {
	t.Parallel()
	r, id := committedSession(t)
	bin := emptyPath(t)
	fake := "#!/bin/sh\nwhile IFS= read -r l || [ -n \"$l\" ]; do printf '%s\\n' \"$l\"; done > \"${0%/*}/prompt.txt\"\n" +
		`echo '{"type":"result","result":"{\"intent\":\"Greet people\",\"outcome\":\"Two greeting files\",\"open_items\":[\"tests\"]}"}'` + "\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(r.Env[:len(r.Env):len(r.Env)], "PATH="+bin)
	out, errOut, code := RunEntire(t, r.Dir, env, "", "explain", "-c", id, "--generate")
	if code != 0 || out != "✓ Summary generated and saved\n" {
		t.Fatalf("--generate: %d %q %q", code, out, errOut)
	}
	prompt, _ := os.ReadFile(filepath.Join(bin, "prompt.txt"))
	if !strings.Contains(string(prompt), "[User] Add a farewell too\n") || !strings.Contains(string(prompt), "[Files Modified]\n- bye.txt\n- hello.txt\n") {
		t.Errorf("prompt given to claude:\n%s", prompt)
	}
	view, _, _ := RunEntire(t, r.Dir, r.Env, "", "explain", "-c", id)
	if !strings.Contains(view, "Intent: Greet people\nOutcome: Two greeting files\n") || !strings.Contains(view, "Open Items:\n  - tests\n") {
		t.Errorf("view after --generate:\n%s", view)
	}
	if subj := gittest.Git(t, r.Dir, "log", "-1", "--format=%s", "entire/checkpoints/v1"); subj != "Update summary for checkpoint "+id+" (session: sess-1)" {
		t.Errorf("metadata commit %q", subj)
	}
	if _, errOut, code := RunEntire(t, r.Dir, env, "", "explain", "-c", id, "--generate"); code != 1 || !strings.Contains(errOut, "already has a summary (use --force") {
		t.Errorf("second --generate: %d %q", code, errOut)
	}
	if _, errOut, code := RunEntire(t, r.Dir, env, "", "explain", "-c", id, "--generate", "--force"); code != 0 {
		t.Errorf("--generate --force: %d %q", code, errOut)
	}
	gittest.Fsck(t, r.Dir)
}

func TestExplainTemporaryCheckpoint(t *testing.T) {
	t.Parallel()
	r := NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.AgentTurn("Please add a greeting", map[string]string{"hello.txt": "hello\n"})
	r.AgentTurn("Add a farewell too", map[string]string{"bye.txt": "bye\n"})
	shadow := gittest.Git(t, r.Dir, "for-each-ref", "--format=%(objectname)", "refs/heads/entire/*-*")
	if len(shadow) != 40 {
		t.Fatalf("shadow tip %q", shadow)
	}
	out, errOut, code := RunEntire(t, r.Dir, r.Env, "", "explain", "-c", shadow[:8], "--no-pager")
	if code != 0 {
		t.Fatalf("explain temporary: %d %s", code, errOut)
	}
	for _, want := range []string{"Checkpoint: " + shadow + " [temporary]\nSession: sess-1\n", "Intent: Please add a greeting\n",
		"Files: (1)\n  - bye.txt\n", "[User] Add a farewell too\n[Tool] Write: bye.txt\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	list, _, _ := RunEntire(t, r.Dir, r.Env, "", "explain")
	if !strings.Contains(list, "Checkpoints: 1\n\n[sess-1] [temporary] \"Please add a greeting\"\n") || strings.Count(list, "(") != 2 {
		t.Errorf("list:\n%s", list)
	}
	if _, errOut, code := RunEntire(t, r.Dir, r.Env, "", "explain", "-c", shadow[:8], "--generate"); code != 1 || !strings.Contains(errOut, "temporary checkpoint") {
		t.Errorf("--generate on temporary: %d %q", code, errOut)
	}
}
