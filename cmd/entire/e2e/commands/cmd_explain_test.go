package commands

import (
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

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
