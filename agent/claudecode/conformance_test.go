package claudecode_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/claudecode"
)

func newWithEnv(env map[string]string, home string) agent.Agent {
	a := claudecode.New()
	a.Getenv = func(k string) string { return env[k] }
	a.UserHomeDir = func() (string, error) { return home, nil }
	return a
}

// sessionLines is a small Claude Code transcript.
var sessionLines = []string{
	`{"type":"summary","summary":"Earlier work","leafUuid":"elsewhere"}`,
	`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"<ide_opened_file>a.go</ide_opened_file>Fix the bug"},"uuid":"u1","timestamp":"2026-01-01T10:00:00Z"}`,
	`{"parentUuid":"u1","type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"Looking."},{"type":"tool_use","id":"toolu_1","name":"Edit","input":{"file_path":"/repo/a.go","old_string":"x","new_string":"y"}}],"usage":{"input_tokens":3,"cache_creation_input_tokens":10,"cache_read_input_tokens":100,"output_tokens":7}},"requestId":"req_1","uuid":"a1","timestamp":"2026-01-01T10:00:01Z"}`,
	`{"parentUuid":"a1","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"ok"}]},"uuid":"u2","timestamp":"2026-01-01T10:00:02Z"}`,
	`{"parentUuid":"u2","type":"assistant","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":1,"output_tokens":2}},"requestId":"req_2","uuid":"a2","timestamp":"2026-01-01T10:00:03Z"}`,
	`{"parentUuid":"a2","type":"user","isMeta":true,"message":{"role":"user","content":"<local-command-caveat>Caveat</local-command-caveat>"},"uuid":"u3"}`,
	`{"parentUuid":"u3","type":"user","message":{"role":"user","content":[{"type":"text","text":"Thanks, now add tests"}]},"uuid":"u4"}`,
	`{"parentUuid":"u4","type":"assistant","message":{"id":"msg_3","role":"assistant","content":[{"type":"text","text":"Added tests."}]},"uuid":"a3"}`,
}

func joinLines(lines []string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

func claudeFixture(t *testing.T) agenttest.Fixture {
	return agenttest.Fixture{
		NewWithEnv:    newWithEnv,
		SessionDirEnv: claudecode.EnvTestProjectDir,
		StorageDir:    ".claude",
		SettingsPath:  ".claude/settings.json",
		MergedKeys:    []string{"env"},
		ForeignSettings: map[string]string{
			"keys-only": "{\n  \"model\": \"opus\",\n  \"env\": {\n    \"FOO\": \"<bar> & \\u00e9\",\n    \"N\": 1.50\n  },\n  \"empty\": {},\n  \"list\": []\n}\n",
			"foreign-hooks": `{
  "permissions": {
    "allow": [
      "Bash(npm run *)"
    ],
    "deny": [
      "Read(./.env)"
    ]
  },
  "hooks": {
    "Stop": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done",
            "timeout": 5
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Write|Edit",
        "hooks": [
          {
            "type": "command",
            "command": "prettier --write"
          }
        ]
      }
    ],
    "Notification": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "say hi"
          }
        ]
      }
    ]
  }
}
`,
			"tabs-no-newline": "{\n\t\"hooks\": {\n\t\t\"PreToolUse\": [\n\t\t\t{\n\t\t\t\t\"matcher\": \"Bash\",\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"type\": \"command\",\n\t\t\t\t\t\t\"command\": \"guard\"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n}",
		},
		Hooks: claudeHookCases(),
		Session: agenttest.SessionCase{
			ID:            "11111111-2222-3333-4444-555555555555",
			Data:          joinLines(sessionLines),
			LastPrompt:    "Thanks, now add tests",
			LastAssistant: "Added tests.",
			ToolUseID:     "toolu_1",
			ToolResultID:  "u2",
			TruncateID:    "u2",
			Truncated:     joinLines(sessionLines[:4]),
			ModifiedFiles: []string{"/repo/a.go"},
			FileName:      "11111111-2222-3333-4444-555555555555.jsonl",
			LastTime:      time.Date(2026, 1, 1, 10, 0, 3, 0, time.UTC),
		},
		TranscriptFiles: agenttest.TranscriptFixtures(t, "claude-code"),
		AppendEntry: func(i int) []byte {
			return []byte(fmt.Sprintf(`{"type":"user","message":{"role":"user","content":"prompt %d"},"uuid":"g%d"}`, i, i))
		},
		Capabilities: claudeCapabilityCases(),
	}
}

func claudeCapabilityCases() agenttest.CapabilityCases {
	big := strings.Repeat("line of output\n", 20)
	bigJSON := strings.ReplaceAll(big, "\n", `\n`)
	return agenttest.CapabilityCases{
		TaskResults: []agenttest.TaskResultCase{
			{Response: `{"status":"completed","agentId":"a1b2c3d","content":[{"type":"text","text":"found"}],"totalTokens":12}`, Want: agent.TaskResult{AgentID: "a1b2c3d"}},
			{Response: `{"status":"async_launched","agentId":"a9","outputFile":"/tmp/a9.output"}`, Want: agent.TaskResult{AgentID: "a9", Background: true}},
		},
		Hides: []agenttest.HideCase{
			{Name: "bash", Threshold: 100, Text: big,
				Input: agent.HookInput{ToolName: "Bash", ToolResponse: []byte(`{"stdout":"` + bigJSON + `","stderr":"","interrupted":false}`)}},
			{Name: "mcp-blocks", Threshold: 200, Text: big[:150] + "\n" + big[:150],
				Input: agent.HookInput{ToolName: "mcp__other__fetch", ToolResponse: []byte(`[{"type":"text","text":"` + bigJSON[:160] + `"},{"type":"text","text":"` + bigJSON[:160] + `"}]`)}},
		},
		PromptOutput: `{"type":"result","subtype":"success","is_error":false,"result":"{\"intent\":\"x\"}","session_id":"s"}`,
		PromptText:   `{"intent":"x"}`,
	}
}

func claudeHookCases() []agenttest.HookCase {
	const base = `"session_id":"s1","transcript_path":"/t/s1.jsonl","cwd":"/repo","permission_mode":"default"`
	return []agenttest.HookCase{
		{Verb: "session-start", Payload: `{` + base + `,"hook_event_name":"SessionStart","source":"startup","model":"claude-opus-4-6"}`,
			Want: agent.HookInput{HookType: agent.HookSessionStart, SessionID: "s1", SessionRef: "/t/s1.jsonl", Cwd: "/repo", EventName: "SessionStart", Source: "startup"}},
		{Verb: "session-end", Payload: `{` + base + `,"hook_event_name":"SessionEnd","reason":"prompt_input_exit"}`,
			Want: agent.HookInput{HookType: agent.HookSessionEnd, SessionID: "s1", SessionRef: "/t/s1.jsonl", Cwd: "/repo", EventName: "SessionEnd", Reason: "prompt_input_exit"}},
		{Verb: "stop", Payload: `{` + base + `,"hook_event_name":"Stop","stop_hook_active":true,"last_assistant_message":"All done."}`,
			Want: agent.HookInput{HookType: agent.HookStop, SessionID: "s1", SessionRef: "/t/s1.jsonl", Cwd: "/repo", EventName: "Stop", StopHookActive: true, LastAssistantMessage: "All done.", HasLastAssistantMessage: true}},
		{Verb: "user-prompt-submit", Payload: `{` + base + `,"hook_event_name":"UserPromptSubmit","prompt":"Fix \"it\"\nnow"}`,
			Want: agent.HookInput{HookType: agent.HookUserPromptSubmit, SessionID: "s1", SessionRef: "/t/s1.jsonl", Cwd: "/repo", EventName: "UserPromptSubmit", UserPrompt: "Fix \"it\"\nnow"}},
		{Verb: "pre-task", Payload: `{` + base + `,"hook_event_name":"PreToolUse","tool_name":"Agent","tool_use_id":"toolu_9","tool_input":{"description":"Explore","prompt":"Look","subagent_type":"Explore"}}`,
			Want: agent.HookInput{HookType: agent.HookPreToolUse, SessionID: "s1", SessionRef: "/t/s1.jsonl", Cwd: "/repo", EventName: "PreToolUse", ToolName: "Agent", ToolUseID: "toolu_9",
				ToolInput: []byte(`{"description":"Explore","prompt":"Look","subagent_type":"Explore"}`)}},
		{Verb: "post-task", Payload: `{` + base + `,"hook_event_name":"PostToolUse","tool_name":"Task","tool_use_id":"toolu_9","tool_input":{"prompt":"Look"},"tool_response":{"status":"completed","agentId":"a1b2c3d","content":[{"type":"text","text":"found"}]}}`,
			Want: agent.HookInput{HookType: agent.HookPostToolUse, SessionID: "s1", SessionRef: "/t/s1.jsonl", Cwd: "/repo", EventName: "PostToolUse", ToolName: "Task", ToolUseID: "toolu_9",
				ToolInput: []byte(`{"prompt":"Look"}`), ToolResponse: []byte(`{"status":"completed","agentId":"a1b2c3d","content":[{"type":"text","text":"found"}]}`)}},
		{Verb: "post-todo", Payload: `{` + base + `,"hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_use_id":"toolu_8","tool_input":{"todos":[{"content":"a","activeForm":"doing a","status":"in_progress"}]},"tool_response":{"oldTodos":[],"newTodos":[]}}`,
			Want: agent.HookInput{HookType: agent.HookPostToolUse, SessionID: "s1", SessionRef: "/t/s1.jsonl", Cwd: "/repo", EventName: "PostToolUse", ToolName: "TodoWrite", ToolUseID: "toolu_8",
				ToolInput: []byte(`{"todos":[{"content":"a","activeForm":"doing a","status":"in_progress"}]}`), ToolResponse: []byte(`{"oldTodos":[],"newTodos":[]}`)}},
		{Verb: "post-tool", Payload: `{` + base + `,"hook_event_name":"PostToolUse","tool_name":"Write","tool_use_id":"toolu_7","tool_input":{"file_path":"/repo/x"},"tool_response":{"filePath":"/repo/x","success":true},"duration_ms":12,"agent_id":"sub1","agent_type":"Explore"}`,
			Want: agent.HookInput{HookType: agent.HookPostToolUse, SessionID: "s1", SessionRef: "/t/s1.jsonl", Cwd: "/repo", EventName: "PostToolUse", ToolName: "Write", ToolUseID: "toolu_7",
				ToolInput: []byte(`{"file_path":"/repo/x"}`), ToolResponse: []byte(`{"filePath":"/repo/x","success":true}`), AgentID: "sub1", SubagentType: "Explore"}},
		{Verb: "subagent-start", Payload: `{` + base + `,"hook_event_name":"SubagentStart","agent_id":"sub1","agent_type":"Explore"}`,
			Want: agent.HookInput{HookType: agent.HookSubagentStart, SessionID: "s1", SessionRef: "/t/s1.jsonl", Cwd: "/repo", EventName: "SubagentStart", AgentID: "sub1", SubagentType: "Explore"}},
		{Verb: "subagent-stop", Payload: `{` + base + `,"hook_event_name":"SubagentStop","agent_id":"sub1","agent_type":"Explore","agent_transcript_path":"/t/s1/subagents/agent-sub1.jsonl","last_assistant_message":"report","stop_hook_active":false}`,
			Want: agent.HookInput{HookType: agent.HookSubagentStop, SessionID: "s1", SessionRef: "/t/s1.jsonl", Cwd: "/repo", EventName: "SubagentStop", AgentID: "sub1", SubagentType: "Explore",
				AgentTranscriptPath: "/t/s1/subagents/agent-sub1.jsonl", LastAssistantMessage: "report", HasLastAssistantMessage: true}},
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	agenttest.Run(t, claudeFixture(t))
}
