package agent_test

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/entirecli/entire/agent"
)

func TestRegistry(t *testing.T) {
	t.Parallel()
	names := agent.List()
	if !reflect.DeepEqual(names, []agent.AgentName{agent.AgentNameClaudeCode, agent.AgentNameGemini}) {
		t.Errorf("List = %v", names)
	}
	if d := agent.Default(); d == nil || d.Name() != agent.DefaultAgentName {
		t.Errorf("Default = %v", d)
	}
	if _, err := agent.Get("cursor"); !errors.Is(err, agent.ErrUnknownAgent) {
		t.Errorf("Get(unknown) err = %v", err)
	}
	if _, err := agent.GetByAgentType(agent.AgentTypeUnknown); !errors.Is(err, agent.ErrUnknownAgent) {
		t.Errorf("GetByAgentType(Agent) err = %v", err)
	}
	g, err := agent.GetByAgentType(agent.AgentTypeGemini)
	if err != nil || g.Name() != agent.AgentNameGemini {
		t.Errorf("GetByAgentType(Gemini) = %v, %v", g, err)
	}
}

// recognizedType is the type of the registered agent that recognises
// content, "" when none does.
func recognizedType(content []byte) agent.AgentType {
	if a := agent.Recognize(content); a != nil {
		return a.Type()
	}
	return ""
}

func TestRecognize(t *testing.T) {
	t.Parallel()
	tests := map[string]agent.AgentType{
		"{\n  \"messages\": [{\"id\":\"1\"}]\n}":                  agent.AgentTypeGemini,
		`{"sessionId":"s","messages":[{"id":"1"}]}`:               agent.AgentTypeGemini,
		`{"messages":[]}`:                                         "",
		"{\"sessionId\":\"s\",\"projectHash\":\"h\"}\n{\"id\":1}": agent.AgentTypeGemini,
		`{"type":"user","uuid":"u","sessionId":"s"}` + "\n":       "",
		"":            "",
		"not json":    "",
		"{\"a\":1}\n": "",
	}
	for in, want := range tests {
		if got := recognizedType([]byte(in)); got != want {
			t.Errorf("Recognize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestForEachLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 3<<20) // longer than the read buffer
	in := "a\r\n\n" + long + "\nlast-without-newline"
	var got []string
	consumed, n, err := agent.ForEachLine(iotest.OneByteReader(strings.NewReader(in)), func(l []byte) error {
		got = append(got, string(l))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 || !reflect.DeepEqual(got, []string{"a\r", "", long}) {
		t.Errorf("lines = %d %q", n, got[:2])
	}
	if want := int64(len(in) - len("last-without-newline")); consumed != want {
		t.Errorf("consumed = %d, want %d", consumed, want)
	}
	stop := errors.New("stop")
	_, n, err = agent.ForEachLine(strings.NewReader("1\n2\n3\n"), func(l []byte) error {
		if string(l) == "2" {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("stop: n=%d err=%v", n, err)
	}
	_, _, err = agent.ForEachLine(iotest.ErrReader(io.ErrUnexpectedEOF), func([]byte) error { return nil })
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("read error not returned: %v", err)
	}
}

func TestObjectRoundTrip(t *testing.T) {
	t.Parallel()
	in := "{\n  \"z\": 1.50,\n  \"a\": \"<&>\\u00e9\\n\",\n  \"n\": null,\n  \"o\": {\n    \"k\": []\n  }\n}"
	o, err := agent.ParseObject([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(o.Indent("  ")); got != in {
		t.Errorf("Indent:\n%s\nwant\n%s", got, in)
	}
	if !reflect.DeepEqual(o.Keys(), []string{"z", "a", "n", "o"}) {
		t.Errorf("Keys = %v", o.Keys())
	}
	o.Set("a", agent.MustString("b"))
	o.Set("new", []byte(`true`))
	if !o.Delete("z") || o.Delete("missing") {
		t.Errorf("Delete results wrong")
	}
	if got := string(o.Compact()); got != `{"a":"b","n":null,"o":{"k":[]},"new":true}` {
		t.Errorf("Compact = %s", got)
	}
	for _, bad := range []string{"", "[]", "{", `{"a":1}{}`, `{"a":}`, `{1:2}`} {
		if _, err := agent.ParseObject([]byte(bad)); err == nil {
			t.Errorf("ParseObject(%q) accepted", bad)
		}
	}
}

func TestRepoRelative(t *testing.T) {
	t.Parallel()
	got := agent.RepoRelative("/repo", "/repo/sub", []string{
		"/repo/a.go", "b.go", "../c.go", "/repo/a.go", "/elsewhere/x", "../../etc/passwd",
		"/repo/.entire/metadata/x", "/repo", "", "/repo/.entirely.go", `/repo/d/../e.go`,
	})
	want := []string{"a.go", "sub/b.go", "c.go", ".entirely.go", "e.go"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RepoRelative = %q, want %q", got, want)
	}
	if got := agent.RepoRelative("/repo", "", []string{"x/y.go"}); !reflect.DeepEqual(got, []string{"x/y.go"}) {
		t.Errorf("relative to root = %q", got)
	}
	if got := agent.RepoRelative("/repo", "sub", []string{"y.go"}); !reflect.DeepEqual(got, []string{"sub/y.go"}) {
		t.Errorf("relative cwd = %q", got)
	}
}

func TestPromptText(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"  plain prompt ": "plain prompt",
		"<ide_opened_file>The user opened x.go</ide_opened_file>\nFix it":                                                    "Fix it",
		"<ide_selection>a\nb</ide_selection>Q<system-reminder>r</system-reminder>":                                           "Q",
		"<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>":       "",
		"<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>PR 6</command-args>": "/review PR 6",
		"<local-command-stdout>out</local-command-stdout>":                                                                   "",
		"[Request interrupted by user for tool use]":                                                                         "",
	}
	for in, want := range tests {
		if got := agent.PromptText(in); got != want {
			t.Errorf("PromptText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := agent.MessageText([]byte(`[{"type":"text","text":"a"},{"type":"tool_result","content":"x"},{"type":"text","text":"b"}]`)); got != "a\n\nb" {
		t.Errorf("MessageText blocks = %q", got)
	}
}

func TestTokenUsageAdd(t *testing.T) {
	t.Parallel()
	var u agent.TokenUsage
	if !u.IsZero() {
		t.Fatal("zero usage not zero")
	}
	u.Add(&agent.TokenUsage{InputTokens: 1, OutputTokens: 2, APICallCount: 1, SubagentTokens: &agent.TokenUsage{OutputTokens: 5}})
	u.Add(nil)
	u.AddSubagentUsage(&agent.TokenUsage{OutputTokens: 1, APICallCount: 1})
	u.AddSubagentUsage(nil)
	want := agent.TokenUsage{InputTokens: 1, OutputTokens: 2, APICallCount: 1, SubagentTokens: &agent.TokenUsage{OutputTokens: 6, APICallCount: 1}}
	if !reflect.DeepEqual(u, want) {
		t.Errorf("usage = %+v / %+v", u, u.SubagentTokens)
	}
}

func TestSessionQueriesJSONL(t *testing.T) {
	t.Parallel()
	// A Gemini JSONL transcript: header, $set records, a message id written
	// twice (the second with toolCalls).
	data := []byte(`{"sessionId":"s","projectHash":"h","startTime":"t","kind":"main"}
{"id":"m1","type":"user","content":[{"text":"hello"}]}
{"$set":{"lastUpdated":"t2"}}
{"id":"m2","type":"gemini","content":"hi"}
{"id":"m2","type":"gemini","content":"hi","toolCalls":[{"id":"tc1","name":"write_file","args":{"file_path":"a"}}]}
{"id":"m3","type":"user","content":"bye"}
`)
	s := &agent.AgentSession{NativeData: data}
	if got := s.GetLastUserPrompt(); got != "bye" {
		t.Errorf("last prompt %q", got)
	}
	if got := s.GetLastAssistantResponse(); got != "hi" {
		t.Errorf("last response %q", got)
	}
	if id, ok := s.FindToolResultUUID("tc1"); !ok || id != "m2" {
		t.Errorf("FindToolResultUUID = %q %v", id, ok)
	}
	tr := s.TruncateAtUUID("m1")
	if want := data[:bytes.Index(data, []byte(`{"$set"`))]; !bytes.Equal(tr.NativeData, want) {
		t.Errorf("truncated:\n%s", tr.NativeData)
	}
}

// allocated returns the bytes fn allocates. Not for parallel tests.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A line of many megabytes (a Write of a generated file) is gathered
// once: ForEachLine allocates about twice its size, not the five times
// of a slice grown by append.
func TestForEachLineLongLineAllocations(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 16<<20)
	in := append(append([]byte("a\n"), long...), "\nb\n"...)
	var n int
	got := allocated(func() {
		agent.ForEachLine(bytes.NewReader(in), func(l []byte) error {
			n += len(l)
			return nil
		})
	})
	if n != len(long)+2 {
		t.Fatalf("lines hold %d bytes", n)
	}
	if limit := uint64(len(long)) * 5 / 2; got > limit {
		t.Errorf("ForEachLine allocated %d MB for a %d MB line (limit %d MB)", got>>20, len(long)>>20, limit>>20)
	}
}

func TestForTranscript(t *testing.T) {
	t.Parallel()
	gemini := []byte("{\n  \"messages\": [{\"id\": \"1\", \"type\": \"user\", \"content\": \"hi\"}]\n}")
	claude := []byte(`{"type":"user","message":{"content":"hi"}}` + "\n")
	for _, tc := range []struct {
		label   agent.AgentType
		content []byte
		want    agent.AgentName
	}{
		{agent.AgentTypeClaudeCode, claude, agent.AgentNameClaudeCode},
		{agent.AgentTypeGemini, gemini, agent.AgentNameGemini},
		{agent.AgentTypeGemini, claude, agent.AgentNameClaudeCode}, // 0.4.x mislabelled Claude JSONL
		{"", gemini, agent.AgentNameGemini},
		{"Something Else", claude, agent.AgentNameClaudeCode},
		{agent.AgentTypeUnknown, claude, agent.AgentNameClaudeCode},
	} {
		if got := agent.ForTranscript(tc.label, tc.content).Name(); got != tc.want {
			t.Errorf("ForTranscript(%q, %.20q) = %s, want %s", tc.label, tc.content, got, tc.want)
		}
	}
}

func TestLastEntryTime(t *testing.T) {
	t.Parallel()
	ts := func(s string) time.Time { v, _ := time.Parse(time.RFC3339Nano, s); return v }
	claude, _ := agent.Get(agent.AgentNameClaudeCode)
	gemini, _ := agent.Get(agent.AgentNameGemini)
	for _, tc := range []struct {
		name    string
		a       agent.Agent
		content string
		want    time.Time
	}{
		{"jsonl", claude, `{"timestamp":"2026-01-01T00:00:00Z"}` + "\n" + `{"timestamp":"2026-01-02T00:00:00.5Z"}` + "\n", ts("2026-01-02T00:00:00.5Z")},
		{"jsonl last line without time", claude, `{"timestamp":"2026-01-01T00:00:00Z"}` + "\n" + `{"type":"summary"}` + "\nnot json", ts("2026-01-01T00:00:00Z")},
		{"gemini", gemini, "{\n \"lastUpdated\": \"2026-03-01T00:00:00Z\",\n \"messages\": [{\"timestamp\": \"2026-02-01T00:00:00Z\"}]\n}", ts("2026-02-01T00:00:00Z")},
		{"gemini without message times", gemini, "{\n \"lastUpdated\": \"2026-03-01T00:00:00Z\",\n \"messages\": [{\"id\": \"1\"}]\n}", ts("2026-03-01T00:00:00Z")},
		{"gemini jsonl", gemini, `{"sessionId":"s","projectHash":"h","startTime":"2026-01-01T00:00:00Z"}` + "\n" + `{"id":"1","timestamp":"2026-01-03T00:00:00Z","type":"user"}` + "\n", ts("2026-01-03T00:00:00Z")},
		{"none", claude, "garbage", time.Time{}},
		{"empty", gemini, "", time.Time{}},
		{"no agent", nil, `{"timestamp":"2026-01-01T00:00:00Z"}`, ts("2026-01-01T00:00:00Z")},
	} {
		if got := agent.LastEntryTime(tc.a, []byte(tc.content)); !got.Equal(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestProtectedDirs(t *testing.T) {
	t.Parallel()
	if got := agent.ProtectedDirs(); !reflect.DeepEqual(got, []string{".claude", ".gemini"}) {
		t.Errorf("ProtectedDirs = %q", got)
	}
	for name, want := range map[string]bool{".claude": true, ".gemini": true, ".entire": false, ".git": false, "claude": false, "": false} {
		if got := agent.IsProtectedDir(name); got != want {
			t.Errorf("IsProtectedDir(%q) = %v, want %v", name, got, want)
		}
	}
}
