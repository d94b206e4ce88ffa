package sessions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
)

// hookJSON runs `entire hooks <agent> <verb>` with payload and requires
// exit 0.
func hookJSON(t *testing.T, r *e2etest.SessionRepo, agentName, verb string, payload map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(payload)
	out, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, string(b), "hooks", agentName, verb)
	if code != 0 {
		t.Fatalf("hooks %s %s: exit %d: %s", agentName, verb, code, errOut)
	}
	return out
}

func appendLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// enableTrustGated enables agentName in r and checks that enable says how
// to trust the hooks and that status reports them as never run.
func enableTrustGated(t *testing.T, r *e2etest.SessionRepo, agentName, agentType string) {
	t.Helper()
	out := r.MustEntire("enable", "--agent", agentName)
	if !strings.Contains(out, "trust") {
		t.Errorf("enable does not say how to trust the hooks:\n%s", out)
	}
	if st := r.MustEntire("status"); !strings.Contains(st, agentType+": hooks installed but never ran") {
		t.Errorf("status before any hook ran:\n%s", st)
	}
}

// TestCodexTurnToExplain plays one Codex turn (payloads and rollout lines
// as Codex 0.171.0 writes them) and commits it: the checkpoint holds the
// prompt, the patched file and the tokens, and explain reads the rollout
// through the Codex agent.
func TestCodexTurnToExplain(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	enableTrustGated(t, r, "codex", "Codex")
	const id = "01a24327-5467-7870-bb0f-14657e5fc697"
	rollout := filepath.Join(t.TempDir(), "rollout-2026-12-04T22-23-00-"+id+".jsonl")
	line := func(typ, payload string) string {
		return `{"timestamp":"2026-12-04T22:23:01.000Z","type":"` + typ + `","payload":` + payload + `}`
	}
	appendLines(t, rollout, line("session_meta", `{"id":"`+id+`","timestamp":"2026-12-04T22:23:00.000Z","cwd":"`+r.Dir+`"}`))
	base := func(event string, extra map[string]any) map[string]any {
		p := map[string]any{"session_id": id, "transcript_path": rollout, "cwd": r.Dir, "hook_event_name": event, "model": "gpt-5.5"}
		for k, v := range extra {
			p[k] = v
		}
		return p
	}
	if out := hookJSON(t, r, "codex", "session-start", base("SessionStart", map[string]any{"source": "startup"})); out != "" && !json.Valid([]byte(out)) {
		t.Errorf("session-start printed text Codex would give the model: %q", out)
	}
	appendLines(t, rollout, line("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"make hello"}]}`))
	if out := hookJSON(t, r, "codex", "user-prompt-submit", base("UserPromptSubmit", map[string]any{"turn_id": "t1", "prompt": "make hello"})); strings.TrimSpace(out) != "" && !json.Valid([]byte(out)) {
		t.Errorf("user-prompt-submit printed text Codex would give the model: %q", out)
	}
	if err := os.WriteFile(filepath.Join(r.Dir, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	appendLines(t, rollout,
		line("response_item", `{"type":"custom_tool_call","call_id":"call_1","name":"apply_patch","input":"*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"}`),
		line("token_usage_record", `{"usage":{"input_tokens":100,"cached_input_tokens":0,"output_tokens":20}}`),
		line("response_item", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Wrote hello.txt."}]}`),
		line("token_usage_record", `{"usage":{"input_tokens":120,"cached_input_tokens":0,"output_tokens":5}}`))
	hookJSON(t, r, "codex", "stop", base("Stop", map[string]any{"turn_id": "t1", "stop_hook_active": false, "last_assistant_message": "Wrote hello.txt."}))
	hookJSON(t, r, "codex", "session-end", base("SessionEnd", map[string]any{"reason": "other"}))
	if st := r.MustEntire("status"); strings.Contains(st, "never ran") {
		t.Errorf("status after the hooks ran:\n%s", st)
	}
	r.Commit("add hello", nil, "hello.txt")
	out := r.MustEntire("explain", "--commit", "HEAD")
	for _, want := range []string{"make hello", "Codex"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	full := r.MustEntire("explain", "--commit", "HEAD", "--full")
	for _, want := range []string{"[User] make hello", "[Tool] apply_patch: hello.txt", "[Assistant] Wrote hello.txt."} {
		if !strings.Contains(full, want) {
			t.Errorf("explain --full lacks %q:\n%s", want, full)
		}
	}
}

// TestCopilotTurnToExplain plays one Copilot CLI turn with sessionStart and
// userPromptSubmitted run at the same time, as Copilot runs them, and
// payloads without a transcript path but agentStop's.
func TestCopilotTurnToExplain(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	home := t.TempDir()
	r.Env = append(r.Env, "COPILOT_HOME="+home)
	enableTrustGated(t, r, "copilot-cli", "Copilot CLI")
	const id = "fc2bdcc8-ec3d-4166-a964-88ac3d233895"
	events := filepath.Join(home, "session-state", id, "events.jsonl")
	if err := os.MkdirAll(filepath.Dir(events), 0o700); err != nil {
		t.Fatal(err)
	}
	ev := func(typ, data string) string {
		return `{"type":"` + typ + `","data":` + data + `,"id":"x","timestamp":"2026-12-04T22:33:38.000Z","parentId":null}`
	}
	appendLines(t, events, ev("session.start", `{"sessionId":"`+id+`","producer":"copilot-agent"}`),
		ev("user.message", `{"content":"make hello"}`))
	var wg sync.WaitGroup
	for _, h := range []struct {
		verb    string
		payload map[string]any
	}{
		{"session-start", map[string]any{"sessionId": id, "timestamp": 1796423617708, "cwd": r.Dir, "source": "new", "initialPrompt": "make hello"}},
		{"user-prompt-submitted", map[string]any{"sessionId": id, "timestamp": 1796423617865, "cwd": r.Dir, "prompt": "make hello"}},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, _ := json.Marshal(h.payload)
			if _, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, string(b), "hooks", "copilot-cli", h.verb); code != 0 {
				t.Errorf("%s: exit %d: %s", h.verb, code, errOut)
			}
		}()
	}
	wg.Wait()
	if err := os.WriteFile(filepath.Join(r.Dir, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	appendLines(t, events,
		ev("session.usage_record", `{"usage":{"inputTokens":100,"outputTokens":20,"cacheReadTokens":0,"cacheWriteTokens":0}}`),
		ev("assistant.message", `{"content":"","toolRequests":[{"toolCallId":"c1","name":"create","arguments":{"path":"`+filepath.Join(r.Dir, "hello.txt")+`","file_text":"hello\n"}}]}`),
		ev("assistant.message", `{"content":"Created hello.txt.","toolRequests":[]}`),
		// Copilot writes the hook's start before it runs the hook: the
		// turn's end is in the file by then.
		ev("hook.start", `{"hookType":"agentStop"}`))
	hookJSON(t, r, "copilot-cli", "agent-stop", map[string]any{"sessionId": id, "timestamp": 1796423629604, "cwd": r.Dir, "transcriptPath": events, "stopReason": "end_turn", "stop_hook_active": false})
	hookJSON(t, r, "copilot-cli", "session-end", map[string]any{"sessionId": id, "timestamp": 1796423630377, "cwd": r.Dir, "reason": "complete"})
	r.Commit("add hello", nil, "hello.txt")
	full := r.MustEntire("explain", "--commit", "HEAD", "--full")
	for _, want := range []string{"[User] make hello", "[Tool] create: hello.txt", "[Assistant] Created hello.txt."} {
		if !strings.Contains(full, want) {
			t.Errorf("explain --full lacks %q:\n%s", want, full)
		}
	}
}

// TestDroidExecTurns plays two `droid exec` turns as droid 0.225 sends
// them: no UserPromptSubmit, so the first turn starts at its first tool
// call and the second, which calls no tool, at its Stop; Stop carries no
// final answer. Both turns are in the checkpoint, with the prompts the
// session file holds.
func TestDroidExecTurns(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.MustEntire("enable", "--agent", "droid")
	const id = "c5243604-bbb4-4099-a911-f8810505edeb"
	session := filepath.Join(t.TempDir(), id+".jsonl")
	msg := func(mid, m string) string {
		return `{"type":"message","id":"` + mid + `","timestamp":"2026-12-04T22:35:42.000Z","message":` + m + `}`
	}
	appendLines(t, session, `{"type":"session_start","id":"`+id+`","title":"make hello","version":2,"cwd":"`+r.Dir+`"}`)
	base := func(event string, extra map[string]any) map[string]any {
		p := map[string]any{"session_id": id, "transcript_path": session, "cwd": r.Dir, "hook_event_name": event, "permission_mode": "auto-low"}
		for k, v := range extra {
			p[k] = v
		}
		return p
	}
	hello, notes := filepath.Join(r.Dir, "hello.txt"), filepath.Join(r.Dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("base\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := e2etest.GitCmd(t, r, "add", "notes.txt").CombinedOutput(); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	if out, err := e2etest.GitCmd(t, r, "commit", "-q", "-m", "notes").CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	hookJSON(t, r, "droid", "session-start", base("SessionStart", map[string]any{"source": "startup"}))
	// The person's line, written before the turn's first tool call: not
	// the turn's.
	if err := os.WriteFile(notes, []byte("base\nmine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	appendLines(t, session, msg("u1", `{"role":"user","content":[{"type":"text","text":"make hello"}]}`),
		msg("a1", `{"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"Create","input":{"file_path":"`+hello+`","content":"hello\n"}}]}`))
	hookJSON(t, r, "droid", "pre-tool", base("PreToolUse", map[string]any{"tool_name": "Create", "tool_input": map[string]any{"file_path": hello}}))
	for path, text := range map[string]string{hello: "hello\n", notes: "base\nmine\nagent\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	appendLines(t, session, msg("a2", `{"role":"assistant","content":[{"type":"text","text":"Wrote hello.txt."}]}`))
	hookJSON(t, r, "droid", "stop", base("Stop", map[string]any{"message_id": "a2", "stop_hook_active": false}))
	hookJSON(t, r, "droid", "session-end", base("SessionEnd", map[string]any{"reason": "other"}))

	// Turn 2 (droid exec -s): no tool, the turn is its Stop.
	hookJSON(t, r, "droid", "session-start", base("SessionStart", map[string]any{"source": "resume"}))
	appendLines(t, session, msg("u2", `{"role":"user","content":[{"type":"text","text":"say bye"}]}`),
		msg("a3", `{"role":"assistant","content":[{"type":"text","text":"Bye."}]}`))
	hookJSON(t, r, "droid", "stop", base("Stop", map[string]any{"message_id": "a3", "stop_hook_active": false}))
	r.Commit("add hello", nil, "hello.txt", "notes.txt")
	if out := r.MustEntire("explain", "--commit", "HEAD"); !strings.Contains(out, "Attribution: 66.7% agent (2 of 3 committed lines; human +1") {
		t.Errorf("the person's line before the turn's first tool call is not the person's:\n%s", out)
	}
	full := r.MustEntire("explain", "--commit", "HEAD", "--full")
	for _, want := range []string{"Factory AI Droid", "[User] make hello", "[Tool] Create: ", "[Assistant] Wrote hello.txt.", "[User] say bye", "[Assistant] Bye."} {
		if !strings.Contains(full, want) {
			t.Errorf("explain --full lacks %q:\n%s", want, full)
		}
	}
}

// TestOpenCodeTurnToExplain plays one OpenCode turn as entire's plugin
// reports it: the prompt quoted as `opencode run` quotes it, and at the
// turn's end the session as `opencode export` prints it, which the hook
// keeps as entire's copy; explain reads the prompt without its quotes,
// the file and the tokens.
func TestOpenCodeTurnToExplain(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	data := t.TempDir()
	r.Env = append(r.Env, "XDG_DATA_HOME="+data)
	r.MustEntire("enable", "--agent", "opencode")
	const id = "ses_dbcd393ddffej6G26lvJUFmdAu"
	hello := filepath.Join(r.Dir, "hello.txt")
	hookJSON(t, r, "opencode", "session-start", map[string]any{"cwd": r.Dir, "session_id": id, "source": "startup"})
	hookJSON(t, r, "opencode", "user-prompt-submit", map[string]any{"cwd": r.Dir, "session_id": id, "prompt": `"make hello"`})
	if err := os.WriteFile(hello, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var info, messages any
	json.Unmarshal([]byte(`{"id":"`+id+`","directory":"`+r.Dir+`","title":"make hello"}`), &info)
	json.Unmarshal([]byte(`[
 {"info":{"id":"msg_1","role":"user","time":{"created":1796423315117}},"parts":[{"type":"text","text":"\"make hello\""}]},
 {"info":{"id":"msg_2","role":"assistant","time":{"created":1796423316638}},"parts":[{"type":"tool","tool":"write","callID":"c1","state":{"status":"completed","input":{"filePath":"`+hello+`","content":"hello\n"}}},{"type":"step-finish","tokens":{"input":100,"output":20,"reasoning":0,"cache":{"read":0,"write":0}}}]},
 {"info":{"id":"msg_3","role":"assistant","time":{"created":1796423326247}},"parts":[{"type":"text","text":"Wrote hello.txt."},{"type":"step-finish","tokens":{"input":110,"output":5,"reasoning":0,"cache":{"read":0,"write":0}}}]}
]`), &messages)
	hookJSON(t, r, "opencode", "stop", map[string]any{"cwd": r.Dir, "session_id": id, "info": info, "messages": messages})
	if _, err := os.Stat(filepath.Join(data, "opencode", "entire", id+".jsonl")); err != nil {
		t.Fatalf("the session's copy: %v", err)
	}
	r.Commit("add hello", nil, "hello.txt")
	out := r.MustEntire("explain", "--commit", "HEAD", "--full")
	for _, want := range []string{"OpenCode", "[User] make hello\n", "[Tool] write: ", "[Assistant] Wrote hello.txt.", "Tokens: 235 "} {
		if !strings.Contains(out, want) {
			t.Errorf("explain --full lacks %q:\n%s", want, out)
		}
	}
}

// TestPiResumedTurnToExplain plays a Pi session the way entire's
// extension reports it: the file does not exist at the first start, the
// second start (`pi --session`) says "startup" too; both turns land in
// the checkpoint, read from the tree's lines.
func TestPiResumedTurnToExplain(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.MustEntire("enable", "--agent", "pi")
	const id = "01a2432e-61de-74b3-84c7-1228277401a8"
	file := filepath.Join(t.TempDir(), "2026-12-04T22-30-42-911Z_"+id+".jsonl")
	base := func(event string, extra map[string]any) map[string]any {
		p := map[string]any{"hook_event_name": event, "session_id": id, "transcript_path": file, "cwd": r.Dir}
		for k, v := range extra {
			p[k] = v
		}
		return p
	}
	msg := func(mid, parent, m string) string {
		return `{"type":"message","id":"` + mid + `","parentId":"` + parent + `","timestamp":"2026-12-04T22:30:47.000Z","message":` + m + `}`
	}
	hello := filepath.Join(r.Dir, "hello.txt")
	hookJSON(t, r, "pi", "session-start", base("session_start", map[string]any{"source": "startup"}))
	hookJSON(t, r, "pi", "user-prompt-submit", base("input", map[string]any{"prompt": "make hello"}))
	if err := os.WriteFile(hello, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	appendLines(t, file, `{"type":"session","version":3,"id":"`+id+`","timestamp":"2026-12-04T22:30:42.911Z","cwd":"`+r.Dir+`"}`,
		msg("u1", "", `{"role":"user","content":[{"type":"text","text":"make hello"}]}`),
		msg("a1", "u1", `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"write","arguments":{"path":"`+hello+`","content":"hello\n"}}],"usage":{"input":100,"output":20,"cacheRead":0,"cacheWrite":0}}`),
		msg("a2", "a1", `{"role":"assistant","content":[{"type":"text","text":"Wrote hello.txt."}],"usage":{"input":110,"output":5,"cacheRead":0,"cacheWrite":0}}`))
	hookJSON(t, r, "pi", "stop", base("agent_end", nil))
	hookJSON(t, r, "pi", "session-end", base("session_shutdown", map[string]any{"reason": "quit"}))

	hookJSON(t, r, "pi", "session-start", base("session_start", map[string]any{"source": "startup"}))
	hookJSON(t, r, "pi", "user-prompt-submit", base("input", map[string]any{"prompt": "say bye"}))
	appendLines(t, file, msg("u2", "a2", `{"role":"user","content":[{"type":"text","text":"say bye"}]}`),
		msg("a3", "u2", `{"role":"assistant","content":[{"type":"text","text":"Bye."}],"usage":{"input":120,"output":2,"cacheRead":0,"cacheWrite":0}}`))
	hookJSON(t, r, "pi", "stop", base("agent_end", nil))
	r.Commit("add hello", nil, "hello.txt")
	out := r.MustEntire("explain", "--commit", "HEAD", "--full")
	for _, want := range []string{"Pi", "[User] make hello", "[Tool] write: ", "[Assistant] Wrote hello.txt.", "[User] say bye", "[Assistant] Bye.", "Tokens: 357 "} {
		if !strings.Contains(out, want) {
			t.Errorf("explain --full lacks %q:\n%s", want, out)
		}
	}
}

// TestPluginNotRunYetReported: an agent that loads a plugin skips one it
// cannot load without a word; status says so until one of its hooks has
// run since enable.
func TestPluginNotRunYetReported(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.MustEntire("enable", "--agent", "opencode")
	if st := r.MustEntire("status"); !strings.Contains(st, "OpenCode: plugin installed but not run yet") {
		t.Errorf("status before the plugin ran:\n%s", st)
	}
	hookJSON(t, r, "opencode", "session-start", map[string]any{"cwd": r.Dir, "session_id": "ses_a1", "source": "startup"})
	if st := r.MustEntire("status"); strings.Contains(st, "not run yet") {
		t.Errorf("status after a hook ran:\n%s", st)
	}
}
