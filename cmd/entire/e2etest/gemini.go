package e2etest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// GeminiSession plays Gemini CLI against a SessionRepo: BeforeAgent /
// AfterAgent payloads and a transcript that is either one JSON document
// rewritten whole on every update, or JSONL (header line, message records,
// $set patches, a message appended again once it has its tool calls).
type GeminiSession struct {
	R     *SessionRepo
	ID    string
	Path  string
	JSONL bool
	Msgs  []map[string]any
	Turn  int
}

// NewGeminiSession starts Gemini CLI session id in r's work tree, its
// transcript in the JSON file Gemini CLI writes (JSONL when jsonl).
func NewGeminiSession(r *SessionRepo, id string, jsonl bool) *GeminiSession {
	ext := ".json"
	if jsonl {
		ext = ".jsonl"
	}
	chats := filepath.Join(r.T.TempDir(), "gemini-tmp", "proj", "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		r.T.Fatal(err)
	}
	return &GeminiSession{R: r, ID: id, Path: filepath.Join(chats, "session-2026-01-02T03-04-"+id[:8]+ext), JSONL: jsonl}
}

// Hook runs `entire hooks gemini <verb>` and returns stdout, stderr and
// the exit code.
func (g *GeminiSession) Hook(verb, event string, payload map[string]any) (string, string, int) {
	g.R.T.Helper()
	setDefault(payload, "session_id", g.ID)
	setDefault(payload, "transcript_path", g.Path)
	setDefault(payload, "cwd", g.R.Dir)
	setDefault(payload, "hook_event_name", event)
	setDefault(payload, "timestamp", time.Now().UTC().Format(time.RFC3339Nano))
	b, _ := json.Marshal(payload)
	return RunEntire(g.R.T, g.R.Dir, g.R.Env, string(b), "hooks", "gemini", verb)
}

// MustHook runs a hook that must succeed: exit 0 and one JSON object on
// stdout, as Gemini CLI reads it.
func (g *GeminiSession) MustHook(verb, event string, payload map[string]any) string {
	g.R.T.Helper()
	out, errOut, code := g.Hook(verb, event, payload)
	var v map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
		g.R.T.Fatalf("gemini %s: exit %d stdout %q stderr %q", verb, code, out, errOut)
	}
	if msg, ok := v["systemMessage"].(string); ok && strings.HasPrefix(msg, "Entire: ") {
		g.R.T.Fatalf("gemini %s reported a failure: %s", verb, msg)
	}
	return errOut
}

// Record adds messages to the transcript the way Gemini CLI writes them.
func (g *GeminiSession) Record(msgs ...map[string]any) {
	g.R.T.Helper()
	now := time.Now().UTC().Format(time.RFC3339Nano)
	if !g.JSONL {
		for _, m := range msgs {
			if i := slices.IndexFunc(g.Msgs, func(o map[string]any) bool { return o["id"] == m["id"] }); i >= 0 {
				g.Msgs[i] = m
			} else {
				g.Msgs = append(g.Msgs, m)
			}
		}
		doc := map[string]any{"sessionId": g.ID, "projectHash": "abc123", "startTime": "2026-01-02T03:04:05Z", "lastUpdated": now, "messages": g.Msgs, "kind": "main"}
		b, _ := json.MarshalIndent(doc, "", "  ")
		if err := os.WriteFile(g.Path, b, 0o644); err != nil { // rewritten whole
			g.R.T.Fatal(err)
		}
		return
	}
	f, err := os.OpenFile(g.Path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		g.R.T.Fatal(err)
	}
	defer f.Close()
	var lines []any
	if fi, _ := f.Stat(); fi.Size() == 0 {
		lines = append(lines, map[string]any{"sessionId": g.ID, "projectHash": "abc123", "startTime": "2026-01-02T03:04:05Z", "lastUpdated": now, "kind": "main"})
	}
	for _, m := range msgs {
		lines = append(lines, m, map[string]any{"$set": map[string]any{"lastUpdated": now}})
	}
	for _, l := range lines {
		b, _ := json.Marshal(l)
		f.Write(append(b, '\n'))
	}
}

// PlayTurn is one Gemini turn: BeforeAgent, the prompt, the model's answer
// (first without, then with its write_file calls; one path relative to the
// project root, one absolute), AfterAgent.
func (g *GeminiSession) PlayTurn(prompt string, files map[string]string) {
	g.R.T.Helper()
	g.Turn++
	g.MustHook("before-agent", "BeforeAgent", map[string]any{"prompt": prompt})
	g.Record(map[string]any{"id": fmt.Sprintf("%s-u%d", g.ID, g.Turn), "timestamp": time.Now().UTC().Format(time.RFC3339), "type": "user", "content": []any{map[string]any{"text": prompt}}})
	answerID := fmt.Sprintf("%s-g%d", g.ID, g.Turn)
	answer := map[string]any{"id": answerID, "type": "gemini", "content": "Working on: " + prompt, "model": "gemini-2.5-pro",
		"tokens": map[string]any{"input": 100, "output": 20, "cached": 10, "thoughts": 3, "tool": 0, "total": 123}}
	g.Record(answer)
	var calls []any
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for i, p := range paths {
		gittest.WriteFile(g.R.T, g.R.Dir, p, files[p])
		arg := p
		if i%2 == 1 {
			arg = filepath.Join(g.R.Dir, p)
		}
		calls = append(calls, map[string]any{"id": fmt.Sprintf("write_file-%d-%d", g.Turn, i), "name": "write_file", "status": "success",
			"args": map[string]any{"file_path": arg, "content": files[p]}})
	}
	withCalls := map[string]any{}
	for k, v := range answer {
		withCalls[k] = v
	}
	withCalls["toolCalls"] = calls
	g.Record(withCalls)
	g.MustHook("after-agent", "AfterAgent", map[string]any{"prompt": prompt, "prompt_response": "Working on: " + prompt, "stop_hook_active": false})
}
