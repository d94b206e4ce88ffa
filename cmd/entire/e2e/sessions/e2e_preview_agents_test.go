package sessions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
)

// previewPayload reads a hand-written payload of a preview agent's package
// (agent/<pkg>/testdata/hook-payloads) with its example paths made the
// test's: each pair of replace is old, new.
func previewPayload(t *testing.T, pkg, event string, replace ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "agent", pkg, "testdata", "hook-payloads", event+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.NewReplacer(replace...).Replace(string(b))
}

// previewHook runs one hook with a payload and requires exit 0 and a JSON
// answer; it returns the answer.
func previewHook(t *testing.T, r *e2etest.SessionRepo, agentName, verb, payload string) string {
	t.Helper()
	out, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, payload, "hooks", agentName, verb)
	if code != 0 {
		t.Fatalf("hooks %s %s: exit %d: %s", agentName, verb, code, errOut)
	}
	if !json.Valid([]byte(out)) {
		t.Errorf("hooks %s %s answered %q, not JSON", agentName, verb, out)
	}
	return strings.TrimSpace(out)
}

// checkPreviewCommit commits hello.txt and checks the checkpoint as a
// Claude session's: the prompt, the agent, the file, no token figures.
func checkPreviewCommit(t *testing.T, r *e2etest.SessionRepo, agentType, prompt string) {
	t.Helper()
	r.Commit("add hello", nil, "hello.txt")
	if e2etest.CheckpointAt(t, r.Dir, "HEAD") == "" {
		t.Fatal("the commit has no checkpoint")
	}
	out := r.MustEntire("explain", "--commit", "HEAD", "--no-pager")
	for _, want := range []string{"(" + agentType + ")", prompt, "Tokens: not recorded"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
}

// checkUninstall runs disable --uninstall and checks the hooks file is as
// it was before enable, byte for byte.
func checkUninstall(t *testing.T, r *e2etest.SessionRepo, path string, before []byte) {
	t.Helper()
	r.MustEntire("disable", "--uninstall", "--force")
	after, err := os.ReadFile(path)
	if err != nil || string(after) != string(before) {
		t.Errorf("%s after uninstall (%v):\n%s\nwant\n%s", path, err, after, before)
	}
}

// TestCursorSession plays every Cursor event entire installs, from the
// package's hand-written payloads, through a turn that writes a file: the
// turn is a rewind point, the commit a checkpoint with the prompt, and
// uninstall leaves the hooks file as it found it.
func TestCursorSession(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	transcripts := t.TempDir()
	r.Env = append(r.Env, "ENTIRE_TEST_CURSOR_PROJECT_DIR="+transcripts)
	hooksFile := filepath.Join(r.Dir, ".cursor", "hooks.json")
	foreign := []byte("{\n  \"version\": 1,\n  \"hooks\": {\n    \"stop\": [{\"command\": \"./notify.sh\"}]\n  }\n}\n")
	if err := os.MkdirAll(filepath.Dir(hooksFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hooksFile, foreign, 0o644); err != nil {
		t.Fatal(err)
	}
	out := r.MustEntire("enable", "--agent", "cursor")
	for _, want := range []string{"(Preview)", "not yet tested against the real client"} {
		if !strings.Contains(out, want) {
			t.Errorf("enable lacks %q:\n%s", want, out)
		}
	}
	const id = "0b9f2f0e-6c1e-4c52-9a4a-2f1d3c4b5a60"
	transcript := filepath.Join(transcripts, id+".jsonl")
	p := func(event string) string {
		return previewPayload(t, "cursor", event, "/home/dev/project", r.Dir)
	}
	if got := previewHook(t, r, "cursor", "session-start", p("sessionStart")); got != "{}" {
		t.Errorf("sessionStart answered %s", got)
	}
	appendLines(t, transcript, `{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\nmake hello.txt\n</user_query>"}]}}`)
	previewHook(t, r, "cursor", "before-submit-prompt", p("beforeSubmitPrompt"))
	if err := os.WriteFile(filepath.Join(r.Dir, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	appendLines(t, transcript,
		`{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Write","input":{"path":"`+r.Dir+`/hello.txt","contents":"hello\n"}}]}}`,
		`{"role":"assistant","message":{"content":[{"type":"text","text":"Created hello.txt."}]}}`)
	previewHook(t, r, "cursor", "after-file-edit", p("afterFileEdit"))
	if got := previewHook(t, r, "cursor", "subagent-start", p("subagentStart")); got != `{"permission":"allow"}` {
		t.Errorf("subagentStart answered %s", got)
	}
	previewHook(t, r, "cursor", "subagent-stop", p("subagentStop"))
	previewHook(t, r, "cursor", "pre-compact", p("preCompact"))
	previewHook(t, r, "cursor", "stop", p("stop"))
	previewHook(t, r, "cursor", "session-end", p("sessionEnd"))
	e2etest.AwaitFinishers(t, r.Dir)
	if pts := r.Points(); len(pts) != 1 || pts[0].SessionID != id {
		t.Errorf("rewind points %+v, want the turn's", pts)
	}
	checkPreviewCommit(t, r, "Cursor", "make hello.txt")
	checkUninstall(t, r, hooksFile, foreign)
}

// TestAntigravitySession plays agy's events from the package's
// hand-written payloads: PreInvocation starts the turn (no prompt event),
// later model calls do not start another, a Stop while background tasks
// run does not end it, the idle Stop does; the prompt comes from the
// transcript.
func TestAntigravitySession(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	brain := t.TempDir()
	const id = "3f6c2a1e-9b8d-4e7f-a6c5-1d2e3f4a5b6c"
	transcript := filepath.Join(brain, id, ".system_generated", "logs", "transcript_full.jsonl")
	if err := os.MkdirAll(filepath.Dir(transcript), 0o700); err != nil {
		t.Fatal(err)
	}
	hooksFile := filepath.Join(r.Dir, ".agents", "hooks.json")
	foreign := []byte("{\n  \"audit\": {\n    \"PreToolUse\": [{\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\", \"command\": \"./audit.sh\"}]}]\n  }\n}\n")
	if err := os.MkdirAll(filepath.Dir(hooksFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hooksFile, foreign, 0o644); err != nil {
		t.Fatal(err)
	}
	out := r.MustEntire("enable", "--agent", "antigravity")
	for _, want := range []string{"(Preview)", "not yet tested against the real client"} {
		if !strings.Contains(out, want) {
			t.Errorf("enable lacks %q:\n%s", want, out)
		}
	}
	p := func(event string) string {
		return previewPayload(t, "antigravity", event, "/home/dev/project", r.Dir,
			"/home/dev/.gemini/antigravity-cli/brain", brain)
	}
	appendLines(t, transcript, `{"step_index":0,"source":"USER_EXPLICIT","type":"USER_INPUT","status":"DONE","created_at":"2026-12-05T10:00:00Z","content":"<USER_REQUEST>\nmake hello.txt\n</USER_REQUEST>"}`)
	previewHook(t, r, "antigravity", "pre-invocation", p("PreInvocation"))
	if got := previewHook(t, r, "antigravity", "pre-tool-use", p("PreToolUse")); got != `{"decision":"allow"}` {
		t.Errorf("PreToolUse answered %s", got)
	}
	if err := os.WriteFile(filepath.Join(r.Dir, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	previewHook(t, r, "antigravity", "post-tool-use", p("PostToolUse"))
	previewHook(t, r, "antigravity", "post-invocation", p("PostInvocation"))
	appendLines(t, transcript,
		`{"step_index":2,"source":"MODEL","type":"PLANNER_RESPONSE","status":"DONE","created_at":"2026-12-05T10:00:02Z","content":"","tool_calls":[{"name":"write_to_file","args":{"TargetFile":"\"`+r.Dir+`/hello.txt\"","CodeContent":"hello\n"}}]}`)
	previewHook(t, r, "antigravity", "pre-invocation", strings.Replace(p("PreInvocation"), `"invocationNum":0`, `"invocationNum":1`, 1))
	previewHook(t, r, "antigravity", "stop", p("Stop-busy"))
	if st := e2etest.SessionState(t, r.Dir, id); st["phase"] != "active" {
		t.Errorf("the turn ended at a Stop while agy was busy: phase %v", st["phase"])
	}
	appendLines(t, transcript, `{"step_index":3,"source":"MODEL","type":"PLANNER_RESPONSE","status":"DONE","created_at":"2026-12-05T10:00:03Z","content":"Created hello.txt."}`)
	previewHook(t, r, "antigravity", "stop", p("Stop"))
	e2etest.AwaitFinishers(t, r.Dir)
	if pts := r.Points(); len(pts) != 1 || pts[0].SessionID != id {
		t.Errorf("rewind points %+v, want the one turn's", pts)
	}
	checkPreviewCommit(t, r, "Antigravity", "make hello.txt")
	checkUninstall(t, r, hooksFile, foreign)
}
