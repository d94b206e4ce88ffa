package cursor_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/cursor"
)

func newWithEnv(env map[string]string, home string) agent.Agent {
	a := cursor.New()
	a.Getenv = func(k string) string { return env[k] }
	a.UserHomeDir = func() (string, error) { return home, nil }
	return a
}

const convID = "0b9f2f0e-6c1e-4c52-9a4a-2f1d3c4b5a60"

// payload returns the hand-written payload of a Cursor event
// (testdata/SOURCES.md).
func payload(t testing.TB, event string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hook-payloads", event+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var testSession = strings.Join([]string{
	`{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\nmake hello\n</user_query>"}]}}`,
	`{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Write","input":{"path":"/repo/hello.txt","contents":"hello\n"}}]}}`,
	`{"role":"assistant","message":{"content":[{"type":"text","text":"Done."}]}}`,
}, "\n") + "\n"

func hookCases(t testing.TB) []agenttest.HookCase {
	const ws = "/home/dev/project"
	c := func(verb, event string, ht agent.HookType, want agent.HookInput) agenttest.HookCase {
		want.HookType, want.SessionID, want.Cwd, want.EventName = ht, convID, ws, event
		return agenttest.HookCase{Verb: verb, Payload: payload(t, event), Want: want}
	}
	return []agenttest.HookCase{
		c("session-start", "sessionStart", agent.HookSessionStart, agent.HookInput{}),
		c("before-submit-prompt", "beforeSubmitPrompt", agent.HookUserPromptSubmit, agent.HookInput{UserPrompt: "make hello.txt"}),
		c("after-file-edit", "afterFileEdit", agent.HookPostToolUse, agent.HookInput{ToolName: "Write", ToolInput: []byte(`{"path":"/home/dev/project/hello.txt"}`)}),
		c("stop", "stop", agent.HookStop, agent.HookInput{}),
		c("pre-compact", "preCompact", agent.HookPreCompress, agent.HookInput{}),
		c("subagent-start", "subagentStart", agent.HookSubagentStart, agent.HookInput{AgentID: "sub-1", SubagentType: "generalPurpose", ToolUseID: "call_sub1"}),
		c("subagent-stop", "subagentStop", agent.HookSubagentStop, agent.HookInput{AgentID: "sub-1", SubagentType: "generalPurpose", ToolUseID: "call_sub1",
			LastAssistantMessage: "Two files: README.md and hello.txt.", HasLastAssistantMessage: true,
			AgentTranscriptPath: "/home/dev/.cursor/projects/home-dev-project/agent-transcripts/" + convID + "/subagents/sub-1.jsonl"}),
		c("session-end", "sessionEnd", agent.HookSessionEnd, agent.HookInput{Reason: "completed"}),
	}
}

func cursorFixture(t *testing.T) agenttest.Fixture {
	return agenttest.Fixture{
		NewWithEnv:    newWithEnv,
		SessionDirEnv: cursor.EnvTestSessionDir,
		StorageDir:    ".cursor",
		SettingsPath:  cursor.HooksPath,
		ForeignSettings: map[string]string{
			"foreign-hooks": "{\n  \"version\": 1,\n  \"hooks\": {\n    \"beforeShellExecution\": [\n      {\"command\": \"./hooks/audit.sh\", \"timeout\": 30}\n    ],\n    \"stop\": [\n      {\"command\": \"./hooks/notify.sh\"}\n    ]\n  }\n}\n",
			"other-keys":    "{\n  \"version\": 1,\n  \"hooks\": {\"afterShellExecution\": []}\n}\n",
		},
		Hooks: hookCases(t),
		Session: agenttest.SessionCase{
			ID: convID, Data: []byte(testSession), LastPrompt: "make hello", LastAssistant: "Done.",
			ModifiedFiles: []string{"/repo/hello.txt"}, FileName: convID + ".jsonl",
		},
		TranscriptFiles: []string{filepath.Join("testdata", "transcripts", convID+".jsonl")},
		AppendEntry: func(i int) []byte {
			return []byte(`{"role":"user","message":{"content":[{"type":"text","text":"<user_query>prompt ` + string(rune('a'+i%26)) + `</user_query>"}]}}`)
		},
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	agenttest.Run(t, cursorFixture(t))
}

// TestTranscript reads the hand-written transcript: the prompt without
// Cursor's wrapper, the file Write wrote, the answer, no tokens.
func TestTranscript(t *testing.T) {
	t.Parallel()
	an, err := cursor.New().ScanTranscript(filepath.Join("testdata", "transcripts", convID+".jsonl"), agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(an.Prompts, []string{"make hello.txt"}) || !reflect.DeepEqual(an.ModifiedFiles, []string{"/home/dev/project/hello.txt"}) ||
		an.LastAssistant != "Created hello.txt." || len(an.ToolUses) != 2 || !an.Tokens.IsZero() {
		t.Errorf("analysis %+v", an)
	}
	if agent.ReportsTokens(cursor.New()) {
		t.Error("Cursor reports no tokens: none must be recorded")
	}
}

// TestTranscriptPathFromWorkspace: the CLI sends a null transcript_path;
// the transcript is the conversation's file in the workspace's project
// directory, nested as the editor writes it when that file exists.
func TestTranscriptPathFromWorkspace(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a := newWithEnv(nil, home).(*cursor.Agent)
	in, err := a.ParseHookInput(agent.HookStop, strings.NewReader(payload(t, "stop")))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(home, ".cursor", "projects", "home-dev-project", "agent-transcripts")
	if want := filepath.Join(dir, convID+".jsonl"); in.SessionRef != want {
		t.Errorf("transcript %q, want %q", in.SessionRef, want)
	}
	nested := filepath.Join(dir, convID, convID+".jsonl")
	if err := os.MkdirAll(filepath.Dir(nested), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nested, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	in, _ = a.ParseHookInput(agent.HookStop, strings.NewReader(payload(t, "stop")))
	if in.SessionRef != nested {
		t.Errorf("transcript %q, want the editor's %q", in.SessionRef, nested)
	}
	withPath := strings.Replace(payload(t, "stop"), `"transcript_path":null`, `"transcript_path":"/t/x.jsonl"`, 1)
	if in, _ := a.ParseHookInput(agent.HookStop, strings.NewReader(withPath)); in.SessionRef != "/t/x.jsonl" {
		t.Errorf("transcript_path not used: %q", in.SessionRef)
	}
}

// TestAnswers: Cursor reads JSON on every path; sessionStart's context is
// additional_context, subagentStart allows.
func TestAnswers(t *testing.T) {
	t.Parallel()
	a := cursor.New()
	for _, tc := range []struct {
		t    agent.HookType
		out  map[string]any
		want string
	}{
		{agent.HookSessionStart, map[string]any{"systemMessage": "x", "hookSpecificOutput": map[string]any{"additionalContext": "notes"}}, `{"additional_context":"notes"}`},
		{agent.HookSessionStart, map[string]any{"systemMessage": "x"}, `{}`},
		{agent.HookSubagentStart, nil, `{"permission":"allow"}`},
		{agent.HookStop, nil, `{}`},
	} {
		if got := strings.TrimSpace(string(a.WriteHookAnswer(tc.t, tc.out))); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.t, got, tc.want)
		}
	}
}
