package geminicli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/agent"
)

func writeRecords(t *testing.T, path string, recs ...any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range recs {
		j, _ := json.Marshal(r)
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// subagentFile writes a subagent transcript as Gemini CLI 0.61 does: a
// header of kind subagent, the prompt, a model message (written twice, the
// second time with its tool calls) and complete_task.
func subagentFile(t *testing.T, dir, id string, started time.Time, prompt, result string, tokens int) string {
	t.Helper()
	path := filepath.Join(dir, id+".jsonl")
	ts := started.UTC().Format(time.RFC3339Nano)
	call := map[string]any{"id": id + "#0-0", "name": CompletionTool, "args": map[string]any{"result": map[string]any{"response": result}}, "status": "success"}
	writeRecords(t, path,
		map[string]any{"sessionId": id, "projectHash": "h", "startTime": ts, "lastUpdated": ts, "kind": "subagent"},
		map[string]any{"id": id + "-u", "timestamp": ts, "type": "user", "content": []any{map[string]any{"text": prompt}}},
		map[string]any{"$set": map[string]any{"lastUpdated": ts}},
		map[string]any{"id": id + "-g", "timestamp": ts, "type": "gemini", "content": "", "tokens": map[string]any{"input": tokens, "output": 1, "total": tokens + 1}},
		map[string]any{"id": id + "-g", "timestamp": ts, "type": "gemini", "content": "", "tokens": map[string]any{"input": tokens, "output": 1, "total": tokens + 1}, "toolCalls": []any{call}},
		map[string]any{"$set": map[string]any{"summary": result}},
	)
	return path
}

func TestFindSubagentByPromptAndTime(t *testing.T) {
	t.Parallel()
	chats := t.TempDir()
	session := "740ee37f-2ec4-4a1f-b202-7852dfed78b9"
	main := filepath.Join(chats, "session-2026-11-23T22-33-740ee37f.jsonl")
	dir := filepath.Join(chats, session)
	t0 := time.Date(2026, 11, 23, 22, 33, 0, 0, time.UTC)
	// The same prompt delegated twice, and another one in between.
	first := subagentFile(t, dir, "a1111111-0000-0000-0000-000000000001", t0.Add(1*time.Second), "SCRIPT:gsub write sub.txt", "first run", 10)
	other := subagentFile(t, dir, "b2222222-0000-0000-0000-000000000002", t0.Add(2*time.Second), "another task", "other", 20)
	second := subagentFile(t, dir, "c3333333-0000-0000-0000-000000000003", t0.Add(5*time.Second), "SCRIPT:gsub write sub.txt", "second run", 30)
	a := New()
	d := agent.Delegation{SubagentType: "generalist", Prompt: "SCRIPT:gsub write sub.txt\n"}
	for _, c := range []struct {
		since      time.Time
		wantPath   string
		wantResult string
	}{
		{t0, first, "first run"},
		{t0.Add(1500 * time.Millisecond), second, "second run"},
		{t0.Add(5 * time.Second), second, "second run"},
	} {
		s, ok := a.FindSubagent(main, session, d, c.since)
		if !ok || s.TranscriptPath != c.wantPath || s.Result != c.wantResult || s.ID == "" {
			t.Errorf("since %s: %+v, %v; want %s", c.since.Sub(t0), s, ok, filepath.Base(c.wantPath))
		}
	}
	if s, ok := a.FindSubagent(main, session, d, t0.Add(6*time.Second)); ok {
		t.Errorf("found %+v started before the delegation", s)
	}
	if s, ok := a.FindSubagent(main, session, agent.Delegation{Prompt: "another task"}, t0); !ok || s.TranscriptPath != other {
		t.Errorf("other prompt: %+v, %v", s, ok)
	}
	// A session ID that is not a plain name is not followed: the lookup
	// stays in the chats folder.
	if s, ok := a.FindSubagent(main, "../../"+session, d, t0); ok && !strings.HasPrefix(s.TranscriptPath, chats+string(filepath.Separator)) {
		t.Errorf("a path-like session ID was followed to %s", s.TranscriptPath)
	}
}

// A scan of the main transcript resolves its invoke_agent calls to the
// subagents they started, and their transcripts give the subagent usage.
func TestScanFindsSubagentsAndTheirUsage(t *testing.T) {
	t.Parallel()
	chats := t.TempDir()
	session := "740ee37f-2ec4-4a1f-b202-7852dfed78b9"
	main := filepath.Join(chats, "session-2026-11-23T22-33-740ee37f.jsonl")
	t0 := time.Date(2026, 11, 23, 22, 33, 0, 0, time.UTC)
	subagentFile(t, filepath.Join(chats, session), "a1111111-0000-0000-0000-000000000001", t0.Add(time.Second), "do it", "done", 10)
	call := map[string]any{"id": "invoke_agent__1", "name": DelegationTool, "args": map[string]any{"agent_name": "generalist", "prompt": "do it"}}
	writeRecords(t, main,
		map[string]any{"sessionId": session, "projectHash": "h", "startTime": t0.Format(time.RFC3339Nano), "kind": "main"},
		map[string]any{"id": "u1", "timestamp": t0.Format(time.RFC3339Nano), "type": "user", "content": []any{map[string]any{"text": "go"}}},
		map[string]any{"id": "g1", "timestamp": t0.Add(500 * time.Millisecond).Format(time.RFC3339Nano), "type": "gemini", "content": "", "tokens": map[string]any{"input": 100, "output": 5}, "toolCalls": []any{call}},
	)
	a := New()
	an, err := a.ScanTranscript(main, agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	if len(an.SubagentIDs) != 1 || an.SubagentIDs[0] != "a1111111-0000-0000-0000-000000000001" {
		t.Fatalf("SubagentIDs %v", an.SubagentIDs)
	}
	u, err := a.SubagentTokenUsage(main, an.SubagentIDs)
	if err != nil || u == nil || u.InputTokens != 10 || u.OutputTokens != 1 || u.APICallCount != 1 {
		t.Errorf("subagent usage %+v, %v", u, err)
	}
	if d, ok := a.Delegation(DelegationTool, []byte(`{"agent_name":"generalist","prompt":"first line\nsecond"}`)); !ok || d.SubagentType != "generalist" || d.Description != "first line" {
		t.Errorf("Delegation %+v, %v", d, ok)
	}
	if _, ok := a.Delegation("write_file", []byte(`{}`)); ok {
		t.Error("write_file is not a delegation")
	}
}
