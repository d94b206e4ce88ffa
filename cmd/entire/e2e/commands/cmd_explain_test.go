package commands

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func TestExplainBadInput(t *testing.T) {
	t.Parallel()
	r, id := e2etest.CommittedSession(t)
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
		_, errOut, code := e2etest.RunEntire(t, r.Dir, env, "", append([]string{"explain"}, tc.args...)...)
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

func TestExplainGenerate(t *testing.T) {
	t.Parallel()
	r, id := e2etest.CommittedSession(t)
	bin := emptyPath(t)
	fake := "#!/bin/sh\nwhile IFS= read -r l || [ -n \"$l\" ]; do printf '%s\\n' \"$l\"; done > \"${0%/*}/prompt.txt\"\n" +
		`echo '{"type":"result","result":"{\"intent\":\"Greet people\",\"outcome\":\"Two greeting files\",\"open_items\":[\"tests\"]}"}'` + "\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(r.Env[:len(r.Env):len(r.Env)], "PATH="+bin)
	out, errOut, code := e2etest.RunEntire(t, r.Dir, env, "", "explain", "-c", id, "--generate")
	if code != 0 || out != "✓ Summary generated and saved\n" {
		t.Fatalf("--generate: %d %q %q", code, out, errOut)
	}
	prompt, _ := os.ReadFile(filepath.Join(bin, "prompt.txt"))
	if !strings.Contains(string(prompt), "[User] Add a farewell too\n") || !strings.Contains(string(prompt), "[Files Modified]\n- bye.txt\n- hello.txt\n") {
		t.Errorf("prompt given to claude:\n%s", prompt)
	}
	view, _, _ := e2etest.RunEntire(t, r.Dir, r.Env, "", "explain", "-c", id)
	if !strings.Contains(view, "Intent: Greet people\nOutcome: Two greeting files\n") || !strings.Contains(view, "Open Items:\n  - tests\n") {
		t.Errorf("view after --generate:\n%s", view)
	}
	if subj := gittest.Git(t, r.Dir, "log", "-1", "--format=%s", "entire/checkpoints/v1"); subj != "Update summary for checkpoint "+id+" (session: sess-1)" {
		t.Errorf("metadata commit %q", subj)
	}
	if _, errOut, code := e2etest.RunEntire(t, r.Dir, env, "", "explain", "-c", id, "--generate"); code != 1 || !strings.Contains(errOut, "already has a summary (use --force") {
		t.Errorf("second --generate: %d %q", code, errOut)
	}
	if _, errOut, code := e2etest.RunEntire(t, r.Dir, env, "", "explain", "-c", id, "--generate", "--force"); code != 0 {
		t.Errorf("--generate --force: %d %q", code, errOut)
	}
	gittest.Fsck(t, r.Dir)
}

func TestExplainTemporaryCheckpoint(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.AgentTurn("Please add a greeting", map[string]string{"hello.txt": "hello\n"})
	r.AgentTurn("Add a farewell too", map[string]string{"bye.txt": "bye\n"})
	shadow := gittest.Git(t, r.Dir, "for-each-ref", "--format=%(objectname)", "refs/heads/entire/*-*")
	if len(shadow) != 40 {
		t.Fatalf("shadow tip %q", shadow)
	}
	out, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, "", "explain", "-c", shadow[:8], "--no-pager")
	if code != 0 {
		t.Fatalf("explain temporary: %d %s", code, errOut)
	}
	for _, want := range []string{"Checkpoint: " + shadow + " [temporary]\nSession: sess-1\n", "Intent: Please add a greeting\n",
		"Files: (1)\n  - bye.txt\n", "[User] Add a farewell too\n[Tool] Write: bye.txt\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	list, _, _ := e2etest.RunEntire(t, r.Dir, r.Env, "", "explain")
	if !strings.Contains(list, "Checkpoints: 1\n\n[sess-1] [temporary] \"Please add a greeting\"\n") || strings.Count(list, "(") != 2 {
		t.Errorf("list:\n%s", list)
	}
	if _, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, "", "explain", "-c", shadow[:8], "--generate"); code != 1 || !strings.Contains(errOut, "temporary checkpoint") {
		t.Errorf("--generate on temporary: %d %q", code, errOut)
	}
}
