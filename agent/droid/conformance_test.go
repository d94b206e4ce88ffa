package droid_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/droid"
)

func newWithEnv(env map[string]string, home string) agent.Agent {
	a := droid.New()
	a.Getenv = func(k string) string { return env[k] }
	a.UserHomeDir = func() (string, error) { return home, nil }
	return a
}

// msg is one message line of a droid session file.
func msg(id, ts, m string) string {
	return `{"type":"message","id":"` + id + `","timestamp":"` + ts + `","message":` + m + `}`
}

var testSession = strings.Join([]string{
	`{"type":"session_start","id":"d1","title":"make hello","version":2,"cwd":"/repo"}`,
	msg("h0", "2026-12-04T22:35:41Z", `{"role":"user","content":[],"visibility":"user_only","hookEventName":"SessionStart"}`),
	msg("context-u1", "2026-12-04T22:35:42Z", `{"role":"user","content":[{"type":"text","text":"<system-reminder>tools</system-reminder> not a prompt"}]}`),
	msg("u1", "2026-12-04T22:35:42.3Z", `{"role":"user","content":[{"type":"text","text":"make hello"}]}`),
	msg("a1", "2026-12-04T22:35:42.4Z", `{"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"Create","input":{"file_path":"/repo/hello.txt","content":"hello\n"}}]}`),
	msg("r1", "2026-12-04T22:35:44Z", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"{\"success\":true}"}]}`),
	msg("a2", "2026-12-04T22:35:45Z", `{"role":"assistant","content":[{"type":"tool_use","id":"call_2","name":"Execute","input":{"command":"ls","summary":"List the files here"}}]}`),
	msg("a3", "2026-12-04T22:35:46Z", `{"role":"assistant","content":[{"type":"text","text":"Done."}]}`),
	`{"type":"agent_turn_outcome","turnId":"u1","reason":"completed"}`,
}, "\n") + "\n"

func droidFixture(t *testing.T) agenttest.Fixture {
	return agenttest.Fixture{
		NewWithEnv:    newWithEnv,
		SessionDirEnv: droid.EnvTestSessionDir,
		StorageDir:    ".factory",
		SettingsPath:  droid.SettingsPath,
		ForeignSettings: map[string]string{
			"other-keys": "{\n  \"customModels\": [\n    {\"model\": \"m\", \"provider\": \"generic-chat-completion-api\"}\n  ]\n}\n",
			"foreign-hooks": `{
  "hooks": {
    "Stop": [
      {
        "hooks": [{"type": "command", "command": "/usr/local/bin/notify", "timeout": 30}]
      }
    ]
  }
}
`,
		},
		Hooks:            hookCases(),
		WrongTypePayload: `{"session_id": 42}`,
		Session: agenttest.SessionCase{
			ID: "d1", Data: []byte(testSession),
			LastPrompt: "make hello", LastAssistant: "Done.",
			ModifiedFiles: []string{"/repo/hello.txt"},
			FileName:      "d1.jsonl",
			LastTime:      agent.ParseTime("2026-12-04T22:35:46Z"),
		},
		TranscriptFiles: agenttest.TranscriptFixtures(t, "droid"),
		AppendEntry: func(i int) []byte {
			return []byte(msg(fmt.Sprint("x", i), "2026-12-04T22:40:00Z", fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":"prompt %d"}]}`, i)))
		},
	}
}

func hookCases() []agenttest.HookCase {
	const base = `"session_id":"d1","transcript_path":"/h/.factory/sessions/-repo/d1.jsonl","cwd":"/repo","permission_mode":"auto-low"`
	c := func(verb, event, extra string, ht agent.HookType, want agent.HookInput) agenttest.HookCase {
		want.HookType, want.SessionID, want.SessionRef, want.Cwd, want.EventName = ht, "d1", "/h/.factory/sessions/-repo/d1.jsonl", "/repo", event
		return agenttest.HookCase{Verb: verb, Payload: `{` + base + `,"hook_event_name":"` + event + `"` + extra + `}`, Want: want}
	}
	return []agenttest.HookCase{
		c("session-start", "SessionStart", `,"source":"startup"`, agent.HookSessionStart, agent.HookInput{Source: "startup"}),
		c("user-prompt-submit", "UserPromptSubmit", `,"prompt":"write tests"`, agent.HookUserPromptSubmit, agent.HookInput{UserPrompt: "write tests"}),
		c("pre-tool", "PreToolUse", `,"tool_name":"Create","tool_input":{"file_path":"/repo/a"}`, agent.HookPreToolUse,
			agent.HookInput{ToolName: "Create", ToolInput: []byte(`{"file_path":"/repo/a"}`)}),
		c("stop", "Stop", `,"message_id":"m1","stop_hook_active":false,"tool_execution_count":0`, agent.HookStop, agent.HookInput{}),
		c("session-end", "SessionEnd", `,"reason":"other"`, agent.HookSessionEnd, agent.HookInput{Reason: "other"}),
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	agenttest.Run(t, droidFixture(t))
}

// TestRealHookPayloads parses what droid 0.225.2 sent to each event: the
// session, its transcript, the tool calls; Stop has no final answer.
func TestRealHookPayloads(t *testing.T) {
	t.Parallel()
	a := droid.New()
	verbs := map[string]string{"SessionStart": "session-start", "PreToolUse": "pre-tool", "Stop": "stop", "SessionEnd": "session-end"}
	for _, name := range []string{"01-turn1-SessionStart.json", "02-turn1-PreToolUse.json", "08-turn1-Stop.json", "09-turn1-SessionEnd.json"} {
		data := agenttest.HookPayloadFile(t, "droid-0.225.2", name)
		event := strings.TrimSuffix(name[strings.LastIndexByte(name, '-')+1:], ".json")
		ht, ok := a.HookTypeForVerb(verbs[event])
		if !ok {
			t.Fatalf("%s: no verb for %s", name, event)
		}
		in, err := a.ParseHookInput(ht, strings.NewReader(string(data)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if in.SessionID != "c5243604-bbb4-4099-a911-f8810505edeb" || !strings.HasSuffix(in.SessionRef, "/c5243604-bbb4-4099-a911-f8810505edeb.jsonl") {
			t.Errorf("%s: session %q at %q", name, in.SessionID, in.SessionRef)
		}
		if event == "PreToolUse" && (in.ToolName != "Create" || !strings.Contains(string(in.ToolInput), "hello.txt")) {
			t.Errorf("%s: tool %q %s", name, in.ToolName, in.ToolInput)
		}
		if event == "Stop" && in.HasLastAssistantMessage {
			t.Errorf("%s: a final answer droid does not send", name)
		}
	}
	if !agent.StartsPromptlessTurns(a) {
		t.Error("droid's turns must start at their first tool event: droid exec sends no UserPromptSubmit")
	}
}

// TestRealTranscript reads the session droid 0.225.2 wrote: the prompt,
// not the context it adds; the files Create and Edit wrote; the answer.
func TestRealTranscript(t *testing.T) {
	t.Parallel()
	dir := agenttest.TranscriptFixtureDir(t, "droid")
	a := droid.New()
	an, err := a.ScanTranscript(filepath.Join(dir, "c5243604-bbb4-4099-a911-f8810505edeb.jsonl"), agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(an.Prompts, []string{"SCRIPT:main DIR=/home/dev/project please do the scripted steps"}) {
		t.Errorf("prompts %q", an.Prompts)
	}
	if !reflect.DeepEqual(an.ModifiedFiles, []string{"/home/dev/project/hello.txt"}) {
		t.Errorf("files %q", an.ModifiedFiles)
	}
	if an.LastAssistant != "All done (main turn). I wrote hello.txt and bash.txt." {
		t.Errorf("last assistant %q", an.LastAssistant)
	}
	if len(an.ToolUses) != 3 {
		t.Errorf("tool uses %+v", an.ToolUses)
	}
}

// TestSessionDirIsPerProject: droid keeps a project's sessions in a
// directory named after its path.
func TestSessionDirIsPerProject(t *testing.T) {
	t.Parallel()
	a := newWithEnv(nil, "/home/u").(*droid.Agent)
	dir, err := a.GetSessionDir("/home/u/project")
	if err != nil || dir != "/home/u/.factory/sessions/-home-u-project" {
		t.Errorf("dir %q, %v", dir, err)
	}
}
