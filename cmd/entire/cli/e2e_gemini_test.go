package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// GeminiSession plays Gemini CLI against a sessionRepo: BeforeAgent /
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

// A Gemini CLI session end to end, for both transcript containers: shadow
// steps per turn, then one checkpoint at the user's commit.
func TestE2EGeminiSession(t *testing.T) {
	t.Parallel()
	for _, jsonl := range []bool{false, true} {
		name := "single JSON"
		if jsonl {
			name = "JSONL"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := NewSessionRepo(t)
			g := NewGeminiSession(r, "7f3c2a10-gemini-session", jsonl)
			out, _, code := g.Hook("session-start", "SessionStart", map[string]any{"source": "startup"})
			if code != 0 || !strings.Contains(out, "Powered by Entire") {
				t.Fatalf("session-start: %d %q", code, out)
			}
			g.PlayTurn("Create the parser", map[string]string{"parser.go": "package parser\n", "lexer.go": "package parser\n"})
			g.PlayTurn("Add parser tests", map[string]string{"parser_test.go": "package parser\n"})

			shadows := ShadowBranches(t, r.Dir)
			if len(shadows) != 1 {
				t.Fatalf("shadow branches %v", shadows)
			}
			if log := gittest.Git(t, r.Dir, "log", "--format=%s", shadows[0]); log != "Add parser tests\nCreate the parser" {
				t.Errorf("shadow log:\n%s", log)
			}
			live, _ := os.ReadFile(g.Path)
			stored := gittest.Git(t, r.Dir, "show", shadows[0]+":.entire/metadata/"+g.ID+"/full.jsonl")
			if stored != strings.TrimSuffix(string(live), "\n") {
				t.Errorf("shadow transcript differs from the live one:\n%s", stored)
			}
			st := SessionState(t, r.Dir, g.ID)
			if st["agent_type"] != "Gemini CLI" || st["checkpoint_count"] != float64(2) {
				t.Errorf("state: agent %v count %v", st["agent_type"], st["checkpoint_count"])
			}
			if ft := anyStrings(st["files_touched"]); !slices.Equal(ft, []string{"lexer.go", "parser.go", "parser_test.go"}) {
				t.Errorf("files_touched %v", ft)
			}

			r.MustGit("add", "parser.go", "lexer.go", "parser_test.go")
			r.MustGit("commit", "-q", "-m", "Add parser")
			id := CheckpointAt(t, r.Dir, "HEAD")
			if id == "" {
				t.Fatal("commit not linked")
			}
			m := ShowJSON(t, r.Dir, CpPath(id, "0/metadata.json"))
			if m["agent"] != "Gemini CLI" || m["session_id"] != g.ID || m["checkpoints_count"] != float64(2) {
				t.Errorf("session metadata %v", m)
			}
			if ft := anyStrings(m["files_touched"]); !slices.Equal(ft, []string{"lexer.go", "parser.go", "parser_test.go"}) {
				t.Errorf("checkpoint files_touched %v", ft)
			}
			if tu, _ := m["token_usage"].(map[string]any); tu["input_tokens"] != float64(200) || tu["output_tokens"] != float64(40) {
				t.Errorf("token_usage %v", m["token_usage"])
			}
			if p := gittest.Git(t, r.Dir, "show", CpPath(id, "0/prompt.txt")); p != "Create the parser\n\n---\n\nAdd parser tests" {
				t.Errorf("prompt.txt %q", p)
			}
			if tr := gittest.Git(t, r.Dir, "show", CpPath(id, "0/full.jsonl")); tr != strings.TrimSuffix(string(live), "\n") {
				t.Errorf("checkpoint transcript differs from the live one")
			}
			if msg := gittest.Git(t, r.Dir, "log", "-1", "--format=%B", "entire/checkpoints/v1"); !strings.Contains(msg, "Entire-Agent: Gemini CLI") {
				t.Errorf("metadata commit:\n%s", msg)
			}
			g.MustHook("session-end", "SessionEnd", map[string]any{"reason": "exit"})
			if st := SessionState(t, r.Dir, g.ID); st["phase"] != "ended" || st["ended_at"] == nil {
				t.Errorf("after session-end: phase %v ended_at %v", st["phase"], st["ended_at"])
			}
			AssertStoreClean(t, r.Dir, id)
		})
	}
}

// Gemini CLI commits in the middle of a turn: the checkpoint is written at
// once and its transcript replaced by the whole turn's at AfterAgent, for
// both transcript containers.
func TestE2EGeminiMidTurnCommit(t *testing.T) {
	t.Parallel()
	for _, jsonl := range []bool{false, true} {
		r := NewSessionRepo(t)
		g := NewGeminiSession(r, "abcdef12-gemini-mid", jsonl)
		g.PlayTurn("First", map[string]string{"f.txt": "f\n"})
		g.MustHook("before-agent", "BeforeAgent", map[string]any{"prompt": "Second and commit"})
		g.Record(map[string]any{"id": "u2", "type": "user", "content": []any{map[string]any{"text": "Second and commit"}}})
		g.Record(map[string]any{"id": "g2", "type": "gemini", "content": "ok", "toolCalls": []any{map[string]any{"id": "w2", "name": "write_file", "args": map[string]any{"file_path": "s.txt"}}}})
		gittest.WriteFile(t, r.Dir, "s.txt", "s\n")
		r.MustGit("add", "f.txt", "s.txt")
		r.MustGit("commit", "-q", "-m", "Mid-turn")
		id := CheckpointAt(t, r.Dir, "HEAD")
		if id == "" {
			t.Fatalf("jsonl=%v: mid-turn commit not linked", jsonl)
		}
		g.Record(map[string]any{"id": "g3", "type": "gemini", "content": "Committed it"})
		g.MustHook("after-agent", "AfterAgent", map[string]any{})
		live, _ := os.ReadFile(g.Path)
		if stored := gittest.Git(t, r.Dir, "show", CpPath(id, "0/full.jsonl")); stored != strings.TrimSuffix(string(live), "\n") {
			t.Errorf("jsonl=%v: transcript not finalized:\n%s", jsonl, stored)
		}
		m := ShowJSON(t, r.Dir, CpPath(id, "0/metadata.json"))
		if ft := anyStrings(m["files_touched"]); !slices.Equal(ft, []string{"f.txt", "s.txt"}) {
			t.Errorf("jsonl=%v: files_touched %v", jsonl, ft)
		}
		if p := gittest.Git(t, r.Dir, "show", CpPath(id, "0/prompt.txt")); p != "First\n\n---\n\nSecond and commit" {
			t.Errorf("jsonl=%v: prompt.txt %q", jsonl, p)
		}
		if subj := gittest.Git(t, r.Dir, "log", "-1", "--format=%s", "entire/checkpoints/v1"); subj != "Finalize transcript for Checkpoint: "+id {
			t.Errorf("jsonl=%v: last metadata commit %q", jsonl, subj)
		}
		AssertStoreClean(t, r.Dir, id)
	}
}

// The verbs no longer installed (SPEC 2.2's hooks that only logged) are
// still called by older installs: they answer "{}" and exit 0 at once,
// whatever stdin holds, without a log file; a kept verb given the same
// input does log it.
func TestE2EGeminiNoOpVerbs(t *testing.T) {
	t.Parallel()
	r := NewSessionRepo(t)
	big := `{"session_id":"s","hook_event_name":"BeforeModel","llm_request":{"messages":[{"role":"user","content":"` +
		strings.Repeat("x", 4<<20) + `"}]}}`
	inputs := map[string]string{"malformed": `{"session_id": "s", "llm_request": `, "empty": "", "not JSON": "garbage", "4 MiB": big}
	for _, verb := range []string{"before-model", "after-model", "before-tool-selection", "pre-compress", "notification"} {
		for name, stdin := range inputs {
			start := time.Now()
			out, errOut, code := RunEntire(t, r.Dir, r.Env, stdin, "hooks", "gemini", verb)
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("%s, %s input: took %v", verb, name, d)
			}
			if code != 0 || out != "{}\n" || errOut != "" {
				t.Errorf("%s, %s input: exit %d stdout %q stderr %q; want 0, {}", verb, name, code, out, errOut)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".entire", "logs")); !os.IsNotExist(err) {
		t.Errorf("no-op verbs wrote .entire/logs (%v):\n%s", err, LogText(r.Dir))
	}
	out, _, code := RunEntire(t, r.Dir, r.Env, inputs["malformed"], "hooks", "gemini", "before-tool")
	if code != 0 || !strings.Contains(out, `"systemMessage":"Entire: `) || !strings.Contains(LogText(r.Dir), `"msg":"bad hook input"`) {
		t.Errorf("before-tool with malformed input: exit %d stdout %q log %q", code, out, LogText(r.Dir))
	}
}
