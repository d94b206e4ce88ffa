//go:build torture

package hostile

import (
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
)

// Prompts and transcripts come from teammates' checkpoints: explain escapes
// terminal control sequences in them (list, committed and temporary views)
// as status does.
func TestE2EExplainEscapesTerminalSequences(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	evil := "Fix it \x1b]0;owned\x07\x1b[2J\u202e now"
	r.StartTurn(r.Dir, evil)
	r.WriteFiles(map[string]string{"a.txt": "a\n"})
	r.EndTurn(r.Dir, "Done \x1b[31mred\x1b[0m")
	check := func(what string, args ...string) {
		t.Helper()
		out, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, "", args...)
		if code != 0 {
			t.Fatalf("%s: exit %d %s", what, code, errOut)
		}
		if strings.ContainsAny(out, "\x1b\x07\u202e") {
			t.Errorf("%s printed raw control sequences:\n%q", what, out)
		}
		if !strings.Contains(out, `\x1b[2J`) {
			t.Errorf("%s lacks the escaped prompt:\n%s", what, out)
		}
	}
	check("explain (temporary list)", "explain", "--no-pager")
	r.MustGit("add", "a.txt")
	r.MustGit("commit", "-q", "-m", "Add a")
	check("explain (list)", "explain", "--no-pager")
	check("explain --commit", "explain", "--no-pager", "--commit", "HEAD")
	check("explain --commit --full", "explain", "--no-pager", "--full", "--commit", "HEAD")
}

// An error message quotes what it was given (a revision, a path, a name
// from a checkpoint): it reaches the terminal escaped, one line per line.
func TestE2EErrorsEscapeTerminalSequences(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	_, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, "", "rewind", "--to", "abc\x1b]0;owned\x07")
	if code == 0 || !strings.Contains(errOut, "not found") {
		t.Fatalf("rewind to an unknown point: exit %d %q", code, errOut)
	}
	if strings.ContainsAny(errOut, "\x1b\x07") {
		t.Errorf("error printed raw control sequences: %q", errOut)
	}
}
