package strategy

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestCommitSubject(t *testing.T) {
	t.Parallel()
	tests := []struct{ prompt, want string }{
		{"Can you please add a login page?", "Add a login page"},
		{"please could you fix the bug", "Fix the bug"},
		{"I'd like you to refactor parser.go", "Refactor parser.go"},
		{"Let's write tests\nwith details on line two", "Write tests"},
		{"", "Claude Code session updates"},
		{"?", "Claude Code session updates"},
		{"<ide_selection>foo</ide_selection>fix it", "Fix it"},
		{strings.Repeat("é", 80), strings.Repeat("É", 1) + strings.Repeat("é", 71)},
		{"ümlaut start", "Ümlaut start"},
	}
	for _, tt := range tests {
		if got := CommitSubject(tt.prompt); got != tt.want {
			t.Errorf("CommitSubject(%q) = %q, want %q", tt.prompt, got, tt.want)
		}
	}
}

func TestFirstPromptAndContexts(t *testing.T) {
	t.Parallel()
	if got := firstPrompt("  a \n\t b  "); got != "a b" {
		t.Errorf("firstPrompt = %q", got)
	}
	if got := firstPrompt(strings.Repeat("x", 150)); got != strings.Repeat("x", 100)+"..." {
		t.Errorf("long firstPrompt = %q", got)
	}
	ctx := condensedContext([]string{"one", strings.Repeat("é", 300)})
	if !strings.HasPrefix(ctx, "# Session Context\n\n## User Prompts\n\n### Prompt 1\n\none\n\n### Prompt 2\n\n") || !strings.HasSuffix(ctx, "...\n") {
		t.Errorf("condensed context:\n%s", ctx)
	}
	if got := splitPrompts(joinPrompts([]string{"a", "b\n\nc"})); len(got) != 2 || got[1] != "b\n\nc" {
		t.Errorf("prompt round trip %q", got)
	}
}

func TestTaskSubject(t *testing.T) {
	t.Parallel()
	in := TaskInput{ToolUseID: "toolu_0123456789abcdef", SubagentType: "general-purpose", Description: "Find the bug"}
	if got := taskSubject(in, NoRedaction{}); got != "Completed 'general-purpose' agent: Find the bug (toolu_012345)" {
		t.Errorf("taskSubject = %q", got)
	}
	in.Description = ""
	if got := taskSubject(in, NoRedaction{}); got != "Completed 'general-purpose' agent (toolu_012345)" {
		t.Errorf("taskSubject = %q", got)
	}
	in.SubagentType, in.Description = "", strings.Repeat("d", 70)
	if got := taskSubject(in, NoRedaction{}); got != "Completed agent: "+strings.Repeat("d", 60)+"... (toolu_012345)" {
		t.Errorf("taskSubject = %q", got)
	}
	in.Description = ""
	if got := taskSubject(in, NoRedaction{}); got != "Task: toolu_012345" {
		t.Errorf("taskSubject = %q", got)
	}
}

type upperRedactor struct{}

func (upperRedactor) JSONLine(b []byte) []byte { return bytes.ToUpper(b) }
func (upperRedactor) Text(s string) string     { return strings.ToUpper(s) }

// Splitting redaction over goroutines gives the same bytes as one pass.
func TestRedactLinesParallelIsStable(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, `{"n":%d,"text":"line %d"}`+"\n", i, i)
	}
	m := &ManualCommit{env: &Env{Redactor: upperRedactor{}}}
	got, _, err := m.redactLines(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := redactLineRange(upperRedactor{}, b.Bytes())
	if !bytes.Equal(got, want) {
		t.Fatal("parallel redaction differs from a single pass")
	}
	if !bytes.Equal(want, bytes.ToUpper(b.Bytes())) {
		t.Fatal("lines lost or reordered")
	}
}

type keepRedactor struct{}

func (keepRedactor) JSONLine(b []byte) []byte { return b }
func (keepRedactor) Text(s string) string     { return s }

// What redaction leaves as it is is not copied: a turn that wrote a line
// of many megabytes is not held twice (or, split over goroutines, three
// times) for nothing.
func TestRedactLinesKeepsUnchangedBytes(t *testing.T) {
	t.Parallel()
	long := append(bytes.Repeat([]byte("x"), 1<<20), '\n')
	m := &ManualCommit{env: &Env{Redactor: keepRedactor{}}}
	for _, data := range [][]byte{long, append(append([]byte(`{"a":1}`+"\n"), long...), `{"b":2}`+"\n"...)} {
		if got, _, _ := m.redactLines(data); !sameBytes(got, data) {
			t.Errorf("redactLines copied %d unchanged bytes", len(data))
		}
		if got, _ := redactLineRange(keepRedactor{}, data); !sameBytes(got, data) {
			t.Errorf("redactLineRange copied %d unchanged bytes", len(data))
		}
	}
	// A line without its newline gets one, as before.
	if got, _ := redactLineRange(keepRedactor{}, []byte("a\nb")); string(got) != "a\nb\n" {
		t.Errorf("redactLineRange(a\\nb) = %q", got)
	}
}
