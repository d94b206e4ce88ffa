package codex_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/codex"
)

func newWithEnv(env map[string]string, home string) agent.Agent {
	a := codex.New()
	a.Getenv = func(k string) string { return env[k] }
	a.UserHomeDir = func() (string, error) { return home, nil }
	return a
}

// line is one rollout line.
func line(ts, typ, payload string) string {
	return `{"timestamp":"` + ts + `","type":"` + typ + `","payload":` + payload + `}`
}

var testSession = strings.Join([]string{
	line("2026-12-04T22:23:00.100Z", "session_meta", `{"id":"01a24327-5467-7870-bb0f-14657e5fc697","timestamp":"2026-12-04T22:23:00.000Z","cwd":"/repo","originator":"codex_exec"}`),
	line("2026-12-04T22:23:01Z", "response_item", `{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions>x</permissions>"}]}`),
	line("2026-12-04T22:23:01Z", "response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"}]}`),
	line("2026-12-04T22:23:02Z", "response_item", `{"type":"message","id":"msg_1","role":"user","content":[{"type":"input_text","text":"make hello"}]}`),
	line("2026-12-04T22:23:03Z", "response_item", `{"type":"custom_tool_call","id":"ctc_1","call_id":"call_1","name":"apply_patch","input":"*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** Update File: old.txt\n*** Move to: new.txt\n@@\n-a\n+b\n*** End Patch\n"}`),
	line("2026-12-04T22:23:03Z", "token_usage_record", `{"usage":{"input_tokens":100,"cached_input_tokens":40,"cache_write_input_tokens":0,"output_tokens":20,"total_tokens":120}}`),
	line("2026-12-04T22:23:04Z", "response_item", `{"type":"custom_tool_call_output","call_id":"call_1","output":"Success"}`),
	line("2026-12-04T22:23:05Z", "response_item", `{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls -l\"}","call_id":"call_2"}`),
	line("2026-12-04T22:23:05Z", "response_item", `{"type":"function_call","name":"note_save","namespace":"mcp__entire","arguments":"{\"key\":\"k\"}","call_id":"call_3"}`),
	line("2026-12-04T22:23:06Z", "response_item", `{"type":"message","id":"msg_2","role":"assistant","content":[{"type":"output_text","text":"Done."}]}`),
	line("2026-12-04T22:23:07Z", "event_msg", `{"type":"task_complete","last_agent_message":"Done."}`),
}, "\n") + "\n"

func codexFixture(t *testing.T) agenttest.Fixture {
	return agenttest.Fixture{
		NewWithEnv:    newWithEnv,
		SessionDirEnv: codex.EnvTestSessionDir,
		StorageDir:    ".codex",
		SettingsPath:  codex.HooksPath,
		ForeignSettings: map[string]string{
			"other-keys": "{\n  \"version\": 1\n}\n",
			"foreign-hooks": `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/notify",
            "timeout": 30
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "check-bash"}]
      }
    ]
  }
}
`,
		},
		Hooks: hookCases(),
		Session: agenttest.SessionCase{
			ID: "01a24327-5467-7870-bb0f-14657e5fc697", Data: []byte(testSession),
			LastPrompt: "make hello", LastAssistant: "Done.",
			ModifiedFiles: []string{"hello.txt", "old.txt", "new.txt"},
			FileName:      "rollout-2026-12-04T22-23-00-01a24327-5467-7870-bb0f-14657e5fc697.jsonl",
			LastTime:      agent.ParseTime("2026-12-04T22:23:07Z"),
		},
		TranscriptFiles: agenttest.TranscriptFixtures(t, "codex"),
		AppendEntry: func(i int) []byte {
			return []byte(line("2026-12-04T22:24:00Z", "response_item", fmt.Sprintf(`{"type":"message","role":"user","content":[{"type":"input_text","text":"prompt %d"}]}`, i)))
		},
		Capabilities: agenttest.CapabilityCases{
			MCPForeign: "model = \"gpt-5.5\"\n\n[mcp_servers.docs]\ncommand = \"docs-server\"\n",
		},
	}
}

func hookCases() []agenttest.HookCase {
	const base = `"session_id":"c1","transcript_path":"/h/.codex/sessions/r-c1.jsonl","cwd":"/repo","model":"gpt-5.5"`
	c := func(verb, event, extra string, ht agent.HookType, want agent.HookInput) agenttest.HookCase {
		want.HookType, want.SessionID, want.SessionRef, want.Cwd, want.EventName = ht, "c1", "/h/.codex/sessions/r-c1.jsonl", "/repo", event
		return agenttest.HookCase{Verb: verb, Payload: `{` + base + `,"hook_event_name":"` + event + `"` + extra + `}`, Want: want}
	}
	return []agenttest.HookCase{
		c("session-start", "SessionStart", `,"source":"resume","permission_mode":"bypassPermissions"`, agent.HookSessionStart, agent.HookInput{Source: "resume"}),
		c("user-prompt-submit", "UserPromptSubmit", `,"turn_id":"t1","prompt":"write tests"`, agent.HookUserPromptSubmit, agent.HookInput{UserPrompt: "write tests"}),
		c("stop", "Stop", `,"turn_id":"t1","stop_hook_active":false,"last_assistant_message":"done"`, agent.HookStop, agent.HookInput{LastAssistantMessage: "done", HasLastAssistantMessage: true}),
		c("session-end", "SessionEnd", `,"reason":"other"`, agent.HookSessionEnd, agent.HookInput{Reason: "other"}),
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	agenttest.Run(t, codexFixture(t))
}

// TestRealHookPayloads parses what Codex 0.171.0 sent to each event.
func TestRealHookPayloads(t *testing.T) {
	t.Parallel()
	a := codex.New()
	verbs := map[string]string{"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit", "Stop": "stop", "SessionEnd": "session-end"}
	for _, name := range []string{"01-turn1-SessionStart.json", "02-turn1-UserPromptSubmit.json", "09-turn1-Stop.json", "10-turn1-SessionEnd.json", "11-turn2-SessionStart.json"} {
		data := agenttest.HookPayloadFile(t, "codex-0.171.0", name)
		event := strings.TrimSuffix(name[strings.LastIndexByte(name, '-')+1:], ".json")
		ht, ok := a.HookTypeForVerb(verbs[event])
		if !ok {
			t.Fatalf("%s: no verb for %s", name, event)
		}
		in, err := a.ParseHookInput(ht, strings.NewReader(string(data)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if in.SessionID != "01a24327-5467-7870-bb0f-14657e5fc697" || !strings.HasSuffix(in.SessionRef, "-01a24327-5467-7870-bb0f-14657e5fc697.jsonl") || in.Cwd != "/home/dev/project" {
			t.Errorf("%s: %+v", name, in)
		}
		switch event {
		case "UserPromptSubmit":
			if in.UserPrompt != "SCRIPT:main DIR=/home/dev/project please do the scripted steps" {
				t.Errorf("prompt %q", in.UserPrompt)
			}
		case "Stop":
			if !in.HasLastAssistantMessage || in.LastAssistantMessage != "All done (main turn). I wrote hello.txt and bash.txt." {
				t.Errorf("last message %q", in.LastAssistantMessage)
			}
		}
	}
}

// TestRealTranscript scans the rollout Codex 0.171.0 wrote over three
// turns: the prompts, the files its patches wrote, the tools and the
// tokens its server served (100 in, 20 out per response, 8 responses).
func TestRealTranscript(t *testing.T) {
	t.Parallel()
	dir := agenttest.TranscriptFixtureDir(t, "codex")
	path := filepath.Join(dir, "rollout-2026-12-04T22-23-00-01a24327-5467-7870-bb0f-14657e5fc697.jsonl")
	a := codex.New()
	an, err := a.ScanTranscript(path, agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	wantPrompts := []string{"SCRIPT:main DIR=/home/dev/project please do the scripted steps", "SCRIPT:turn2 DIR=/home/dev/project second turn", "SCRIPT:plain DIR=/home/dev/project text only"}
	if !reflect.DeepEqual(an.Prompts, wantPrompts) {
		t.Errorf("prompts %q", an.Prompts)
	}
	if !reflect.DeepEqual(an.ModifiedFiles, []string{"hello.txt", "turn2.txt"}) {
		t.Errorf("files %q", an.ModifiedFiles)
	}
	if an.LastAssistant != "Just text, no tools." {
		t.Errorf("last assistant %q", an.LastAssistant)
	}
	want := agent.TokenUsage{InputTokens: 800, OutputTokens: 160, APICallCount: 8}
	if an.Tokens != want {
		t.Errorf("tokens %+v, want %+v", an.Tokens, want)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !a.RecognizeTranscript(data) || agent.Recognize(data) == nil || agent.Recognize(data).Name() != codex.Name {
		t.Errorf("the rollout is not recognised as Codex's")
	}
	// Turn 2 alone, from where turn 1's scan ended at its Stop.
	snap := filepath.Join(dir, "turn1-rollout-snapshot-at-Stop-hook.jsonl")
	first, err := a.ScanTranscript(snap, agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	if first.LastAssistant != "All done (main turn). I wrote hello.txt and bash.txt." {
		t.Errorf("turn 1 at Stop: last assistant %q", first.LastAssistant)
	}
	rest, err := a.ScanTranscript(path, first.To)
	if err != nil {
		t.Fatal(err)
	}
	if len(rest.Prompts) != 2 || rest.Tokens.APICallCount != 4 || !reflect.DeepEqual(rest.ModifiedFiles, []string{"turn2.txt", "hello.txt"}) {
		t.Errorf("turns 2-3 after turn 1's end: %q %+v %q", rest.Prompts, rest.Tokens, rest.ModifiedFiles)
	}
}

func TestPatchFiles(t *testing.T) {
	t.Parallel()
	patch := "*** Begin Patch\n*** Add File: a/b.txt\n+x\n*** Delete File: gone.txt\n*** Update File: c.txt\n*** Move to: d.txt\n@@\n-1\n+2\n*** Update File: a/b.txt\n*** End Patch\n"
	if got := codex.PatchFiles(patch); !reflect.DeepEqual(got, []string{"a/b.txt", "gone.txt", "c.txt", "d.txt"}) {
		t.Errorf("PatchFiles = %q", got)
	}
	if got := codex.PatchFiles("not a patch"); got != nil {
		t.Errorf("PatchFiles of text = %q", got)
	}
}

// TestMCPUnregisterKeepsLaterEdits: a config file enable created keeps
// what the user added to it after enable; only Entire's table goes.
func TestMCPUnregisterKeepsLaterEdits(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	a := codex.New()
	log := &agent.InstallLog{}
	if _, err := a.RegisterMCPIn(root, log); err != nil {
		t.Fatal(err)
	}
	log.AddCreated(codex.ConfigPath) // as enable records a file it created
	p := filepath.Join(root, codex.ConfigPath)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	mine := "\n[mcp_servers.docs]\ncommand = \"docs\"\n"
	if err := os.WriteFile(p, append(data, mine...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := a.UnregisterMCPIn(root, log); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != mine {
		t.Errorf("after unregister: %q, want %q", got, mine)
	}
}

// An MCP tool call reads under its full name, as entire's MCP tools are
// told apart from others.
func TestNamespacedCall(t *testing.T) {
	t.Parallel()
	rec := codex.New().ReadRecord([]byte(line("2026-12-04T22:23:05Z", "response_item", `{"type":"function_call","name":"note_save","namespace":"mcp__entire","arguments":"{}","call_id":"c"}`)))
	if len(rec.Entries) != 1 || rec.Entries[0].Tool != "mcp__entire__note_save" || !agent.IsEntireMCPTool(rec.Entries[0].Tool) {
		t.Errorf("entries %+v", rec.Entries)
	}
}
