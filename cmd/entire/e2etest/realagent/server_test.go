package realagent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// recorder is a testing.TB whose errors are kept instead of failing the
// test, to check that the server reports them.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// claudeEvents returns the data of an SSE answer's events, by event name.
func claudeEvents(t *testing.T, body string) map[string][]map[string]any {
	t.Helper()
	out := map[string][]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(body))
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var m map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
				t.Fatalf("event %s: %v", event, err)
			}
			out[event] = append(out[event], m)
		}
	}
	return out
}

func TestClaudeStepsFollowTheConversation(t *testing.T) {
	rec := &recorder{TB: t}
	srv := NewServer(rec, map[string]Script{"s": {
		{Tools: []ToolCall{{Name: "Write", Input: map[string]any{"file_path": "/x", "content": "x"}}}, Usage: Usage{Input: 10, Output: 2}},
		{Text: "done", Usage: Usage{Input: 11, Output: 3}},
	}})
	first := `{"model":"m","stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"SCRIPT:s go"}]}]}`
	resp, body := post(t, srv.URL()+"/v1/messages?beta=true", first)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	ev := claudeEvents(t, body)
	start := ev["content_block_start"]
	if len(start) != 1 || start[0]["content_block"].(map[string]any)["name"] != "Write" {
		t.Errorf("step 0 blocks %v", start)
	}
	if d := ev["message_delta"]; len(d) != 1 || d[0]["delta"].(map[string]any)["stop_reason"] != "tool_use" || d[0]["usage"].(map[string]any)["output_tokens"] != float64(2) {
		t.Errorf("step 0 delta %v", d)
	}
	// The tool result is the user's turn but not its own text: step 1.
	second := `{"model":"m","stream":true,"messages":[{"role":"user","content":"SCRIPT:s go"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Write","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"SCRIPT:other"}]}]}`
	_, body = post(t, srv.URL()+"/v1/messages", second)
	ev = claudeEvents(t, body)
	if d := ev["content_block_delta"]; len(d) != 1 || d[0]["delta"].(map[string]any)["text"] != "done" {
		t.Errorf("step 1 deltas %v", d)
	}
	// A retry gets the same answer and the same message ID.
	_, again := post(t, srv.URL()+"/v1/messages", second)
	if again != body {
		t.Error("a retried request got another answer")
	}
	if n, u := srv.Calls(KindClaude, "s"); n != 3 || u.Input != 32 || u.Output != 8 {
		t.Errorf("calls %d usage %+v", n, u)
	}
	if r, ok := srv.First("s"); !ok || len(r.Markers) != 1 || r.Markers[0] != "SCRIPT:s go" {
		t.Errorf("first request markers %+v", r.Markers)
	}
	if len(rec.errors()) != 0 {
		t.Errorf("errors: %v", rec.errors())
	}

	// Past the script's end, an unknown path, an unknown script: each
	// fails the test and answers an error.
	past := `{"model":"m","stream":true,"messages":[{"role":"user","content":"SCRIPT:s go"},{"role":"assistant","content":"a"},{"role":"assistant","content":"b"}]}`
	for _, c := range []struct{ path, body string }{
		{"/v1/messages", past},
		{"/v1/complete", first},
		{"/v1/messages", `{"stream":true,"messages":[{"role":"user","content":"SCRIPT:nope"}]}`},
	} {
		if resp, _ := post(t, srv.URL()+c.path, c.body); resp.StatusCode < 400 {
			t.Errorf("%s: status %d", c.path, resp.StatusCode)
		}
	}
	if n := len(rec.errors()); n != 3 {
		t.Errorf("%d errors reported, want 3: %v", n, rec.errors())
	}
}

func TestGeminiStreamAndRouter(t *testing.T) {
	rec := &recorder{TB: t}
	srv := NewServer(rec, map[string]Script{"g": {
		{Tools: []ToolCall{{Name: "invoke_agent", Input: map[string]any{"prompt": Capture{Pattern: `id=(\w+)`}}}}, Usage: Usage{Input: 5, Output: 1, CacheRead: 2}},
	}})
	resp, body := post(t, srv.URL()+"/v1beta/models/m:generateContent", `{"contents":[],"generationConfig":{"responseJsonSchema":{"properties":{"complexity_score":{}}}}}`)
	if resp.StatusCode != 200 || !strings.Contains(body, "complexity_score") {
		t.Errorf("router: %d %s", resp.StatusCode, body)
	}
	resp, body = post(t, srv.URL()+"/v1beta/models/m:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"SCRIPT:g id=abc123"}]}]}`)
	if resp.StatusCode != 200 || !strings.HasPrefix(body, "data: ") {
		t.Fatalf("stream: %d %s", resp.StatusCode, body)
	}
	var chunk struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					FunctionCall struct {
						Name string         `json:"name"`
						Args map[string]any `json:"args"`
					} `json:"functionCall"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
		UsageMetadata map[string]int `json:"usageMetadata"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(body, "data: "))), &chunk); err != nil {
		t.Fatal(err)
	}
	fc := chunk.Candidates[0].Content.Parts[0].FunctionCall
	if fc.Name != "invoke_agent" || fc.Args["prompt"] != "abc123" || chunk.UsageMetadata["cachedContentTokenCount"] != 2 {
		t.Errorf("chunk %+v", chunk)
	}
	if n, _ := srv.Calls(KindGeminiStream, "g"); n != 1 {
		t.Errorf("%d stream calls", n)
	}
	// A generateContent call that is not the router is not expected.
	if resp, _ := post(t, srv.URL()+"/v1beta/models/m:generateContent", `{"contents":[]}`); resp.StatusCode < 400 || len(rec.errors()) != 1 {
		t.Errorf("non-router generateContent: %d, errors %v", resp.StatusCode, rec.errors())
	}
}

func TestServerIsBounded(t *testing.T) {
	rec := &recorder{TB: t}
	srv := NewServer(rec, nil)
	srv.maxRequests = 3
	for i := 0; i < 5; i++ {
		req, _ := http.NewRequest(http.MethodHead, srv.URL()+"/", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := i < 3; (resp.StatusCode == 200) != want {
			t.Errorf("request %d: status %d", i, resp.StatusCode)
		}
	}
	if n := len(rec.errors()); n != 2 {
		t.Errorf("%d errors past the bound, want 2", n)
	}
}

// toolNames returns the names of an SSE answer's tool calls.
func toolNames(t *testing.T, body string) []string {
	t.Helper()
	var names []string
	for _, b := range claudeEvents(t, body)["content_block_start"] {
		if cb := b["content_block"].(map[string]any); cb["type"] == "tool_use" {
			names = append(names, cb["name"].(string))
		}
	}
	return names
}

// Claude Code 2.1.332's shape: MCP tools offered by name only, no task
// tools, and a background subagent's result as a <task-notification>.
func TestClaudeDeferredToolsOptionalCallsAndNotifications(t *testing.T) {
	rec := &recorder{TB: t}
	srv := NewServer(rec, map[string]Script{"s": {
		{Tools: []ToolCall{{Name: "TaskCreate", Input: map[string]any{}, Optional: true}}, Usage: Usage{Input: 1}},
		{Tools: []ToolCall{{Name: "mcp__entire__hide_next", Input: map[string]any{"hide_id": "h"}}}, Usage: Usage{Input: 2}},
		{Text: "done", Usage: Usage{Input: 3}},
	}})
	tools := `"tools":[{"name":"Bash"},{"name":"ToolSearch"}]`
	user := `{"role":"user","content":[{"type":"text","text":"SCRIPT:s go"}]}`
	search := `{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"ToolSearch","input":{}}]}`
	result := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"loaded"}]}`
	hide := `{"role":"assistant","content":[{"type":"tool_use","id":"b","name":"mcp__entire__hide_next","input":{}}]}`
	hideResult := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"b","content":"page 2"}]}`
	done := `{"role":"assistant","content":[{"type":"text","text":"done"}]}`
	notification := `{"role":"user","content":"<task-notification>\n<tool-use-id>x</tool-use-id>\n<result>sub done</result>\n</task-notification>"}`
	req := func(msgs ...string) string {
		return `{"model":"m","stream":true,` + tools + `,"messages":[` + strings.Join(msgs, ",") + `]}`
	}

	// TaskCreate is not offered: its step is left out; the MCP tool is
	// loaded through ToolSearch first.
	_, body := post(t, srv.URL()+"/v1/messages", req(user))
	if got := toolNames(t, body); len(got) != 1 || got[0] != "ToolSearch" {
		t.Fatalf("first answer calls %v, want ToolSearch", got)
	}
	_, body = post(t, srv.URL()+"/v1/messages", req(user, search, result))
	if got := toolNames(t, body); len(got) != 1 || got[0] != "mcp__entire__hide_next" {
		t.Fatalf("after the search the answer calls %v", got)
	}
	_, body = post(t, srv.URL()+"/v1/messages", req(user, search, result, hide, hideResult))
	if got := toolNames(t, body); len(got) != 0 || !strings.Contains(body, `"done"`) {
		t.Fatalf("last step: tools %v, body %s", got, body)
	}
	// The notification gets the server's own answer, counted for s.
	_, body = post(t, srv.URL()+"/v1/messages", req(user, search, result, hide, hideResult, done, notification))
	if !strings.Contains(body, NotificationAnswer) {
		t.Fatalf("notification answer: %s", body)
	}
	n, u := srv.Calls(KindClaude, "s")
	if n != 4 || u.Input != ToolSearchUsage.Input+2+3+NotificationUsage.Input {
		t.Errorf("calls %d, usage %+v", n, u)
	}
	if errs := rec.errors(); len(errs) > 0 {
		t.Errorf("server errors: %v", errs)
	}
}
