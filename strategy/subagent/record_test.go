package subagent

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/conclusion"
)

func TestSetOutput(t *testing.T) {
	t.Parallel()
	var task conclusion.Task
	SetOutput(&task, "short")
	if task.Output != "short" || task.OutputTail != "" {
		t.Errorf("short output: %+v", task)
	}
	long := strings.Repeat("é", MaxOutputBytes) + "<entire:conclusion>\nstatus: success\nsummary: s\n</entire:conclusion>"
	SetOutput(&task, long)
	if len(task.Output) > MaxOutputBytes || !strings.HasPrefix(long, task.Output) {
		t.Errorf("head cut wrong: %d bytes", len(task.Output))
	}
	if len(task.OutputTail) > TailBytes || !strings.HasSuffix(long, task.OutputTail) || !strings.HasPrefix(task.OutputTail, "é") {
		t.Errorf("tail cut wrong: %q...", task.OutputTail[:10])
	}
	// The conclusion survives in the tail.
	if c := conclusion.Enrich(&task, conclusion.DelegationOptions{}, nil); c == nil || c.Summary != "s" {
		t.Errorf("conclusion lost: %+v", c)
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in    string
		wantID      string
		wantSummary string
		wantErr     bool
	}{
		{"task record", `{"id":"toolu_1","engine":"claude-code","status":"completed","conclusion":{"status":"success","summary":"done"}}`, "toolu_1", "done", false},
		{"bare conclusion", `{"status":"partial","summary":"half"}`, "", "half", false},
		{"task without conclusion", `{"id":"a1","engine":"claude-code","status":"running"}`, "a1", "", false},
		{"not an object", `[1]`, "", "", true},
		{"garbage", `{`, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			task, err := Decode([]byte(tt.in))
			if tt.wantErr {
				if !errors.Is(err, ErrCorrupt) {
					t.Errorf("err = %v, want ErrCorrupt", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			summary := ""
			if task.Conclusion != nil {
				summary = task.Conclusion.Summary
			}
			if task.ID != tt.wantID || summary != tt.wantSummary {
				t.Errorf("Decode = %+v", task)
			}
		})
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	t.Parallel()
	task := &conclusion.Task{ID: "toolu_1", Engine: "claude-code", Status: conclusion.TaskCompleted,
		StartedAt:  time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Conclusion: &conclusion.Conclusion{Status: conclusion.StatusSuccess, Summary: "ok", Confidence: 0.5}}
	b, err := Encode(task)
	if err != nil || !json.Valid(b) || !strings.HasSuffix(string(b), "}\n") {
		t.Fatalf("Encode = %s, %v", b, err)
	}
	got, err := Decode(b)
	if err != nil || got.ID != "toolu_1" || !got.StartedAt.Equal(task.StartedAt) || got.Conclusion.Confidence != 0.5 {
		t.Errorf("round trip = %+v, %v", got, err)
	}
}

func TestResponseText(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"status":"completed","agentId":"a","content":[{"type":"text","text":"one"},{"type":"image"},{"type":"text","text":"two"}]}`, "one\ntwo"},
		{`{"llmContent":"gemini says"}`, "gemini says"},
		{`"plain failure"`, "plain failure"},
		{`{"status":"async_launched","agentId":"a"}`, ""},
		{`not json`, ""},
		{``, ""},
	}
	for _, tt := range tests {
		if got := ResponseText([]byte(tt.in)); got != tt.want {
			t.Errorf("ResponseText(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLastMessage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "agent-a1.jsonl")
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"go"}}`,
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"earlier"}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"x"}]}}`,
		`{"type":"assistant","message":{"id":"m2","content":[{"type":"thinking","thinking":"hmm"}]}}`,
		`{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"final part 1"}]}}`,
		`{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"final part 2"}]}}`,
		`{"type":"progress","data":{}}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := LastMessage(path); err != nil || got != "final part 1\nfinal part 2" {
		t.Errorf("LastMessage = %q, %v", got, err)
	}
	if got, err := LastMessage(filepath.Join(dir, "missing.jsonl")); got != "" || err != nil {
		t.Errorf("missing file = %q, %v", got, err)
	}
	if got, err := LastMessage(""); got != "" || err != nil {
		t.Errorf("no path = %q, %v", got, err)
	}
}

func TestPending(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := NewPending(root)
	if _, err := p.Get("s1", "a1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of nothing: %v", err)
	}
	for _, key := range []string{"b2", "a1"} {
		if err := p.Put("s1", key, &conclusion.Task{ID: key, Engine: "claude-code"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Put("s1", "../evil", &conclusion.Task{}); err == nil {
		t.Errorf("path-like key accepted")
	}
	list, err := p.List("s1")
	if err != nil || len(list) != 2 || list[0].Key != "a1" || list[1].Task.ID != "b2" {
		t.Fatalf("List = %+v, %v", list, err)
	}
	if other, err := p.List("s2"); other != nil || err != nil {
		t.Errorf("other session = %+v, %v", other, err)
	}
	for _, key := range []string{"a1", "b2", "b2"} {
		if err := p.Remove("s1", key); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, PendingDir, "s1")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty session dir left: %v", err)
	}
}
