package strategy

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// What the strategy prints names what the agent said (a task's
// description): an escape sequence in it reaches the terminal escaped.
func TestProgressLinesAreEscaped(t *testing.T) {
	t.Parallel()
	r := newMCRepo(t)
	in := r.startTurn("s1", "delegate")
	task := TaskInput{TurnInput: in, ToolUseID: "toolu_0123456789abcdef", SubagentType: "general-purpose",
		Description: "clear \x1b[2J\x1b]0;owned\x07 screen"}
	if err := r.m.TaskStart(context.Background(), task); err != nil {
		t.Fatal(err)
	}
	r.agentWrites("s1", map[string]string{"a.txt": "a\n"})
	if err := r.m.TaskEnd(context.Background(), task); err != nil {
		t.Fatal(err)
	}
	out := r.env.Stderr.(*bytes.Buffer).String()
	if !strings.Contains(out, `Created task checkpoint: Completed 'general-purpose' agent: clear \x1b[2J\x1b]0;owned\a screen`) {
		t.Errorf("task checkpoint line not printed escaped:\n%q", out)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("control characters printed:\n%q", out)
	}
}
