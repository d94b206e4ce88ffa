package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func TestExplainGenerate(t *testing.T) {
	t.Parallel()
	r, id := e2etest.CommittedSession(t)
	bin := e2etest.GitOnlyPath(t)
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
