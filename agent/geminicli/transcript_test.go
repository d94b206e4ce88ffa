package geminicli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/geminicli"
)

func TestFixtures(t *testing.T) {
	t.Parallel()
	want := map[string]struct {
		format  geminicli.Format
		entries int
		files   []string
		calls   int
		input   int
	}{
		"VibeCodingTracker__gemini.jsonl":                          {geminicli.FormatJSONL, 0, []string{"GEMINI.md"}, 6, 202586},
		"VibeCodingTracker__test_conversation_gemini-894772f.json": {geminicli.FormatJSON, 4, []string{"README.md", "README.zh-CN.md", "README.zh-TW.md", "CONTRIBUTING.md"}, 3, 76348},
		"VibeCodingTracker__test_conversation_gemini-b36a8d3.json": {geminicli.FormatJSON, 19, nil, 18, 466642},
		"agtrace__session-2025-12-09T19-50-f0a689a6.json":          {geminicli.FormatJSON, 9, []string{"myapp/hoge.py"}, 7, 67273},
		"ai-sessions__gemini-cli-pomodoro-timer.json": {geminicli.FormatJSON, 19, []string{"/Users/yoavfarhi/dev/pomodoro/gemini/index.html",
			"/Users/yoavfarhi/dev/pomodoro/gemini/style.css", "/Users/yoavfarhi/dev/pomodoro/gemini/script.js"}, 13, 120730},
		"cli__51-3fab7adf0b-0-full.jsonl": {geminicli.FormatJSON, 4, []string{"test-gemini.txt"}, 2, 24176},
		"cli__9c-53780d06b7-0-full.jsonl": {geminicli.FormatJSON, 8, []string{"docs/blue.md"}, 5, 62895},
		"cli__ab-2b9748b105-0-full.jsonl": {geminicli.FormatJSON, 13, []string{"docs/blue.md"}, 10, 131375},
		"cli__c9-45f262e88d-0-full.jsonl": {geminicli.FormatJSON, 3, []string{"docs/blue.md"}, 2, 24557},
		"cli__ec-38b74f08e3-2-full.jsonl": {geminicli.FormatJSON, 1, nil, 0, 0},
	}
	a := geminicli.New()
	files := agenttest.TranscriptFixtures(t, "gemini-cli")
	if len(files) != len(want) {
		t.Errorf("%d fixtures, %d expectations", len(files), len(want))
	}
	for _, path := range files {
		name := filepath.Base(path)
		w, ok := want[name]
		if !ok {
			t.Errorf("no expectation for %s", name)
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if f := geminicli.DetectFormat(data); f != w.format {
			t.Errorf("%s: format %v, want %v", name, f, w.format)
		}
		if w.format == geminicli.FormatJSONL {
			w.entries = bytes.Count(data, []byte("\n"))
		}
		an, err := a.ScanTranscript(path, agent.Position{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if an.To.Entries != w.entries || !reflect.DeepEqual(an.ModifiedFiles, w.files) ||
			an.Tokens.APICallCount != w.calls || an.Tokens.InputTokens != w.input {
			t.Errorf("%s: entries %d files %q calls %d input %d; want %d %q %d %d", name,
				an.To.Entries, an.ModifiedFiles, an.Tokens.APICallCount, an.Tokens.InputTokens, w.entries, w.files, w.calls, w.input)
		}
		if w.calls > 0 && (len(an.Prompts) == 0 || an.LastAssistant == "" || an.To.LastID == "") {
			t.Errorf("%s: prompts %d, last assistant %q, last id %q", name, len(an.Prompts), an.LastAssistant, an.To.LastID)
		}
		for _, p := range an.Prompts {
			if strings.Contains(p, "<ide_") {
				t.Errorf("%s: IDE tags left in prompt", name)
			}
		}
	}
}

// TestGrowingSession scans three copies of one session taken as it grew
// (3, 8, 13 messages): scanning the newest from an older position sees
// exactly the new messages.
func TestGrowingSession(t *testing.T) {
	t.Parallel()
	dir := agenttest.TranscriptFixtureDir(t, "gemini-cli")
	a := geminicli.New()
	var prev *agent.Analysis
	for _, name := range []string{"cli__c9-45f262e88d-0-full.jsonl", "cli__9c-53780d06b7-0-full.jsonl", "cli__ab-2b9748b105-0-full.jsonl"} {
		path := filepath.Join(dir, name)
		whole, err := a.ScanTranscript(path, agent.Position{})
		if err != nil {
			t.Fatal(err)
		}
		if prev != nil {
			tail, err := a.ScanTranscript(path, prev.To)
			if err != nil {
				t.Fatal(err)
			}
			if prev.Tokens.APICallCount+tail.Tokens.APICallCount != whole.Tokens.APICallCount ||
				len(prev.Prompts)+len(tail.Prompts) != len(whole.Prompts) || tail.To != whole.To {
				t.Errorf("%s: prev %+v + tail %+v != whole %+v", name, prev.Tokens, tail.Tokens, whole.Tokens)
			}
		}
		prev = whole
	}
}

func TestJSONLRecords(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}`,
		`{"id":"u1","type":"user","content":[{"text":"make it"}]}`,
		`{"$set":{"lastUpdated":"t2"}}`,
		`{"id":"g1","type":"gemini","content":"ok","tokens":{"input":10,"output":1,"cached":4,"total":11}}`,
		`{"id":"g1","type":"gemini","content":"ok","tokens":{"input":10,"output":1,"cached":4,"total":11},"toolCalls":[{"id":"c1","name":"replace","args":{"file_path":"a.go","old_string":"x","new_string":"y"}}]}`,
		`garbage`,
		`{"id":"i1","type":"info","content":"update available"}`,
	}
	path := filepath.Join(t.TempDir(), "session-2026-04-01T00-00-s.jsonl")
	content := strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	a := geminicli.New()
	an, err := a.ScanTranscript(path, agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	wantTok := agent.TokenUsage{InputTokens: 10, OutputTokens: 1, CacheReadTokens: 4, APICallCount: 1}
	if !reflect.DeepEqual(an.Tokens, wantTok) || !reflect.DeepEqual(an.ModifiedFiles, []string{"a.go"}) ||
		!reflect.DeepEqual(an.Prompts, []string{"make it"}) || an.To.Entries != len(lines) || an.To.LastID != "i1" {
		t.Errorf("analysis %+v", an)
	}
	// Appending the second record of g1 after a scan: the new scope sees
	// the updated message once.
	first := strings.Join(lines[:4], "\n") + "\n"
	if err := os.WriteFile(path, []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	head, err := a.ScanTranscript(path, agent.Position{})
	if err != nil || head.To.Offset != int64(len(first)) || len(head.ModifiedFiles) != 0 {
		t.Fatalf("head scan %+v, %v", head, err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	tail, err := a.ScanTranscript(path, head.To)
	if err != nil || !reflect.DeepEqual(tail.ModifiedFiles, []string{"a.go"}) || len(tail.Prompts) != 0 || tail.To != an.To {
		t.Errorf("tail scan %+v, %v", tail, err)
	}
}

func TestDetectFormat(t *testing.T) {
	t.Parallel()
	tests := map[string]geminicli.Format{
		"{\n  \"messages\": []\n}":                     geminicli.FormatJSON,
		"  \n{\r\n\"messages\":[]}":                    geminicli.FormatJSON,
		`{"sessionId":"s","messages":[{"id":"1"}]}`:    geminicli.FormatJSON,
		`{"sessionId":"s","projectHash":"h"}` + "\n{}": geminicli.FormatJSONL,
		`{"id":"1","type":"user"}`:                     geminicli.FormatJSONL,
		"":                                             geminicli.FormatJSONL,
	}
	for in, want := range tests {
		if got := geminicli.DetectFormat([]byte(in)); got != want {
			t.Errorf("DetectFormat(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestChunkDocument(t *testing.T) {
	t.Parallel()
	path := filepath.Join(agenttest.TranscriptFixtureDir(t, "gemini-cli"), "ai-sessions__gemini-cli-pomodoro-timer.json")
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a := geminicli.New()
	for _, size := range []int{12 << 10, 24 << 10, 40 << 10} {
		chunks, err := a.ChunkTranscript(content, size)
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if len(chunks) < 2 {
			t.Fatalf("size %d: %d chunks", size, len(chunks))
		}
		for i, c := range chunks {
			var d map[string]json.RawMessage
			if len(c) > size || json.Unmarshal(c, &d) != nil || d["messages"] == nil {
				t.Errorf("size %d chunk %d: %d bytes, not a messages document", size, i, len(c))
			}
			if _, ok := d["sessionId"]; ok != (i == 0) {
				t.Errorf("size %d chunk %d: sessionId present = %v", size, i, ok)
			}
		}
		back, err := a.ReassembleTranscript(chunks)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back, content) {
			var x, y interface{}
			_ = json.Unmarshal(back, &x)
			_ = json.Unmarshal(content, &y)
			if !reflect.DeepEqual(x, y) {
				t.Errorf("size %d: reassembled document differs", size)
			}
		}
		if keys := topKeys(t, back); !reflect.DeepEqual(keys, topKeys(t, content)) {
			t.Errorf("size %d: top-level keys %v", size, keys)
		}
	}
	if _, err := a.ChunkTranscript(content, 512); err == nil {
		t.Errorf("a message larger than the chunk size was accepted")
	}
	// Invalid JSON that looks like a document falls back to lines.
	bad := []byte("{\n\"messages\": [\n" + strings.Repeat("x,\n", 40))
	if chunks, err := a.ChunkTranscript(bad, 64); err != nil || !bytes.Equal(agent.ReassembleJSONL(chunks), bad) {
		t.Errorf("invalid document: %v", err)
	}
}

func topKeys(t *testing.T, doc []byte) []string {
	o, err := agent.ParseObject(doc)
	if err != nil {
		t.Fatal(err)
	}
	return o.Keys()
}

func TestSessionPaths(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a := newWithEnv(nil, home)
	dir, err := a.GetSessionDir("/Users/zawakin/agent-sample")
	hash := geminicli.ProjectHash("/Users/zawakin/agent-sample")
	if !strings.HasPrefix(hash, "9126edde") { // FORMATS.md's checked example
		t.Errorf("ProjectHash = %s", hash)
	}
	if want := filepath.Join(home, ".gemini", "tmp", hash, "chats"); err != nil || dir != want {
		t.Errorf("GetSessionDir = %q, %v; want %q", dir, err, want)
	}
	alt := newWithEnv(map[string]string{geminicli.EnvCLIHome: "/gh"}, home)
	if d, _ := alt.GetSessionDir("/r"); !strings.HasPrefix(d, "/gh/.gemini/tmp/") {
		t.Errorf("GEMINI_CLI_HOME not honoured: %q", d)
	}
	// WriteSession reuses the newest existing session-*-<id8> file.
	sdir := t.TempDir()
	ga := newWithEnv(map[string]string{geminicli.EnvTestProjectDir: sdir}, home)
	existing := filepath.Join(sdir, "session-2026-01-01T10-00-abcdef12.json")
	if err := os.WriteFile(existing, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &agent.AgentSession{SessionID: "abcdef12-9999", NativeData: []byte("{\n  \"messages\": []\n}")}
	if err := ga.WriteSession(s); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(existing); !bytes.Equal(b, s.NativeData) {
		t.Errorf("existing session file not reused: %q", b)
	}
	s2 := &agent.AgentSession{SessionID: "99999999-jsonl", NativeData: []byte("{\"sessionId\":\"x\",\"projectHash\":\"h\",\"startTime\":\"2026-11-23T22:55:08.090Z\"}\n")}
	if err := ga.WriteSession(s2); err != nil {
		t.Fatal(err)
	}
	// Named as Gemini CLI names sessions: it lists nothing else.
	if _, err := os.Stat(filepath.Join(sdir, "session-2026-11-23T22-55-99999999.jsonl")); err != nil {
		t.Errorf("JSONL session not written as session-<start>-<id8>.jsonl: %v", err)
	}
}
