package explain

import (
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint/condensed"
)

func TestParseTranscript(t *testing.T) {
	t.Parallel()
	claude := `{"type":"user","uuid":"1","message":{"role":"user","content":"<ide_opened_file>x</ide_opened_file>Fix the bug"}}
{"type":"assistant","uuid":"2","message":{"content":[{"type":"text","text":"Looking."},{"type":"tool_use","name":"Grep","input":{"pattern":"bug"}},{"type":"tool_use","name":"TodoWrite","input":{}}]}}
not json
{"type":"user","uuid":"3","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}
{"type":"user","uuid":"4","isMeta":true,"message":{"content":"meta"}}
{"type":"user","uuid":"5","message":{"content":[{"type":"text","text":"Base directory for this skill: /x"}]}}
{"type":"assistant","uuid":"6","isSidechain":true,"message":{"content":[{"type":"text","text":"subagent"}]}}
{"type":"summary","leafUuid":"2"}

{"type":"assistant","uuid":"7","message":{"content":[{"type":"text","text":"Fixed\nin two lines."}]}}`
	gemini := `{
  "messages": [
    {"id": "1", "type": "user", "content": "First"},
    {"id": "2", "type": "gemini", "content": "", "toolCalls": [{"name": "run_shell_command", "args": {"command": "ls"}}]},
    {"id": "3", "type": "user", "content": [{"text": "Second"}]},
    {"id": "4", "type": "gemini", "content": "Done"}
  ]
}`
	for _, tc := range []struct {
		name    string
		content string
		start   int
		want    []Entry
	}{
		{"claude", claude, 0, []Entry{
			{Role: RoleUser, Text: "Fix the bug"},
			{Role: RoleAssistant, Text: "Looking."},
			{Role: RoleTool, Tool: "Grep", Text: "bug"},
			{Role: RoleTool, Tool: "TodoWrite"},
			{Role: RoleAssistant, Text: "Fixed\nin two lines."},
		}},
		{"claude scoped", claude, 8, []Entry{{Role: RoleAssistant, Text: "Fixed\nin two lines."}}},
		{"claude past end", claude, 99, nil},
		{"gemini", gemini, 0, []Entry{
			{Role: RoleUser, Text: "First"},
			{Role: RoleTool, Tool: "run_shell_command", Text: "ls"},
			{Role: RoleUser, Text: "Second"},
			{Role: RoleAssistant, Text: "Done"},
		}},
		{"gemini scoped", gemini, 2, []Entry{{Role: RoleUser, Text: "Second"}, {Role: RoleAssistant, Text: "Done"}}},
		{"compact gemini", `{"messages":[{"type":"user","content":"hi"}]}`, 0, []Entry{{Role: RoleUser, Text: "hi"}}},
		{"empty", "", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseTranscript([]byte(tc.content), tc.start)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
	gem, err := agent.Get(agent.AgentNameGemini)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := condensed.ParseTranscript(gem, []byte("{\n  \"messages\": [\n"), 0); err == nil {
		t.Error("truncated Gemini document: no error")
	}
}

func TestWriteTranscriptAndTruncate(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	_ = WriteTranscript(&b, []Entry{
		{Role: RoleUser, Text: " hi "},
		{Role: RoleTool, Tool: "Bash", Text: "ls\n-la"},
		{Role: RoleTool, Tool: "Edit"},
		{Role: RoleAssistant, Text: "ok"},
	})
	if want := "[User] hi\n[Tool] Bash: ls -la\n[Tool] Edit\n\n[Assistant] ok\n"; b.String() != want {
		t.Errorf("got %q want %q", b.String(), want)
	}
	for in, want := range map[string]string{"short": "short", "abcdefghijkl": "abcdefg...", "héllo wörld\nagain": "héllo w..."} {
		if got := Truncate(in, 10); got != want {
			t.Errorf("Truncate(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseTranscript(f *testing.F) {
	f.Add([]byte(`{"type":"user","message":{"content":"x"}}`), 0)
	f.Add([]byte("{\n\"messages\":[{\"type\":\"gemini\",\"toolCalls\":[{\"name\":\"a\",\"args\":1}]}]}"), 1)
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":"x"}]}}`), -1)
	f.Fuzz(func(t *testing.T, data []byte, start int) {
		entries, err := ParseTranscript(data, start)
		if err != nil {
			return
		}
		var b strings.Builder
		if err := WriteTranscript(&b, entries); err != nil {
			t.Fatal(err)
		}
	})
}
