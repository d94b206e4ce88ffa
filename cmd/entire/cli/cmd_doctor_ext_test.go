package cli_test

import (
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/cli"
	"github.com/entirecli/entire/cmd/entire/e2etest"
)

// promptFactory is a test factory that can prompt, in accessible
// (plain-text) mode, reading answer.
func promptFactory(dir, answer string) (*cli.Factory, func() string) {
	f, out, errOut := cli.TestFactory(dir, map[string]string{"ACCESSIBLE": "1"})
	f.IO.In = strings.NewReader(answer)
	f.IO.SetStdinTTY(true)
	f.IO.SetStderrTTY(true)
	return f, func() string { return out.String() + "\n--- stderr ---\n" + errOut.String() }
}

func TestDoctorAsks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		answer, want string
		stateKept    bool
	}{
		{"3\n", "Skipped session sess-1", true},
		{"2\n", "Discarded session sess-1", false},
		{"1\n", "Condensed session sess-1 into checkpoint", true},
	} {
		t.Run(strings.TrimSpace(tt.answer), func(t *testing.T) {
			t.Parallel()
			r := e2etest.NewSessionRepo(t)
			r.AgentTurn("Add a greeting", map[string]string{"hello.txt": "hello\n"})
			r.Hook("session-end", map[string]any{"reason": "exit"})
			f, output := promptFactory(r.Dir, tt.answer)
			if code := cli.Run([]string{"doctor"}, f); code != cli.ExitOK {
				t.Fatalf("doctor exit %d:\n%s", code, output())
			}
			if !strings.Contains(output(), tt.want) || !strings.Contains(output(), "Condense (save its checkpoints") {
				t.Errorf("doctor with answer %q:\n%s", tt.answer, output())
			}
			if kept := r.State("sess-1") != nil; kept != tt.stateKept {
				t.Errorf("state kept = %v", kept)
			}
		})
	}
}

func TestResetAsks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		answer    string
		stateKept bool
	}{
		{"n\n", true},
		{"y\n", false},
	} {
		t.Run(strings.TrimSpace(tt.answer), func(t *testing.T) {
			t.Parallel()
			r := e2etest.NewSessionRepo(t)
			r.AgentTurn("Add a greeting", map[string]string{"hello.txt": "hello\n"})
			f, output := promptFactory(r.Dir, tt.answer)
			if code := cli.Run([]string{"reset", "--session", "sess-1"}, f); code != cli.ExitOK {
				t.Fatalf("reset exit %d:\n%s", code, output())
			}
			if !strings.Contains(output(), "Reset session sess-1?") || !strings.Contains(output(), "Phase: idle, Checkpoints: 1") {
				t.Errorf("reset question:\n%s", output())
			}
			if kept := r.State("sess-1") != nil; kept != tt.stateKept {
				t.Errorf("state kept = %v:\n%s", kept, output())
			}
		})
	}
}
