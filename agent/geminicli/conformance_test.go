package geminicli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/geminicli"
)

func newWithEnv(env map[string]string, home string) agent.Agent {
	a := geminicli.New()
	a.Getenv = func(k string) string { return env[k] }
	a.UserHomeDir = func() (string, error) { return home, nil }
	return a
}

type testToolCall struct {
	ID     string            `json:"id"`
	Name   string            `json:"name"`
	Args   map[string]string `json:"args"`
	Status string            `json:"status"`
}

type testMessage struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []testToolCall  `json:"toolCalls,omitempty"`
	Tokens    map[string]int  `json:"tokens,omitempty"`
}

type testDoc struct {
	SessionID   string        `json:"sessionId"`
	ProjectHash string        `json:"projectHash"`
	StartTime   string        `json:"startTime"`
	Messages    []testMessage `json:"messages"`
}

var testMessages = []testMessage{
	{ID: "m1", Type: "user", Content: json.RawMessage(`"Make a notes file"`)},
	{ID: "m2", Type: "gemini", Content: json.RawMessage(`"Creating it."`),
		ToolCalls: []testToolCall{{ID: "write_file-1-ab", Name: "write_file", Args: map[string]string{"file_path": "notes.txt", "content": "x"}, Status: "success"}},
		Tokens:    map[string]int{"input": 100, "output": 10, "cached": 40, "thoughts": 5, "tool": 0, "total": 115}},
	{ID: "m3", Type: "user", Content: json.RawMessage(`[{"text":"<ide_selection>x</ide_selection>Thanks"}]`)},
	{ID: "m4", Type: "gemini", Content: json.RawMessage(`"You're welcome."`)},
}

func doc(msgs []testMessage) []byte {
	b, err := json.MarshalIndent(testDoc{SessionID: "abcdef12-0000-4000-8000-000000000000", ProjectHash: "ff", StartTime: "2026-01-01T00:00:00Z", Messages: msgs}, "", "  ")
	if err != nil {
		panic(err)
	}
	return b
}

func geminiFixture(t *testing.T) agenttest.Fixture {
	return agenttest.Fixture{
		NewWithEnv:    newWithEnv,
		SessionDirEnv: geminicli.EnvTestProjectDir,
		StorageDir:    ".gemini",
		SettingsPath:  ".gemini/settings.json",
		ForeignSettings: map[string]string{
			"keys-only": "{\n  \"theme\": \"Dracula\",\n  \"general\": {\n    \"vimMode\": true\n  }\n}",
			"foreign-hooks-enabled": `{
  "hooksConfig": {
    "enabled": true
  },
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "write_file|replace",
        "hooks": [
          {
            "name": "my-check",
            "type": "command",
            "command": "/usr/local/bin/check",
            "timeout": 5000
          }
        ]
      }
    ]
  }
}
`,
			"hooks-config-other-keys": "{\n  \"hooksConfig\": {\n    \"notifications\": false\n  },\n  \"mcpServers\": {}\n}",
		},
		Hooks: geminiHookCases(),
		Session: agenttest.SessionCase{
			ID:            "abcdef12-0000-4000-8000-000000000000",
			Data:          doc(testMessages),
			LastPrompt:    "Thanks",
			LastAssistant: "You're welcome.",
			ToolUseID:     "write_file-1-ab",
			ToolResultID:  "m2",
			TruncateID:    "m2",
			Truncated:     doc(testMessages[:2]),
			ModifiedFiles: []string{"notes.txt"},
			FileName:      "session-2026-01-01T00-00-abcdef12.json", // named from the startTime
		},
		TranscriptFiles: agenttest.TranscriptFixtures(t, "gemini-cli"),
		Capabilities:    geminiCapabilityCases(),
	}
}

func geminiCapabilityCases() agenttest.CapabilityCases {
	big := strings.Repeat("a line of the file\n", 20)
	bigJSON := strings.ReplaceAll(big, "\n", `\n`)
	return agenttest.CapabilityCases{
		Hides: []agenttest.HideCase{
			{Name: "string", Threshold: 100, Text: big,
				Input: agent.HookInput{ToolName: "read_file", ToolResponse: []byte(`{"llmContent":"` + bigJSON + `","returnDisplay":"Read 20 lines","error":null}`)}},
			{Name: "parts", Threshold: 100, Text: big + "\nend",
				Input: agent.HookInput{ToolName: "mcp_other_fetch", ToolResponse: []byte(`{"llmContent":[{"text":"` + bigJSON + `"},{"text":"end"}],"returnDisplay":"ok"}`)}},
		},
		PromptOutput: `{"session_id":"s","response":"{\"intent\":\"x\"}","stats":{}}`,
		PromptText:   `{"intent":"x"}`,
	}
}

func geminiHookCases() []agenttest.HookCase {
	const base = `"session_id":"g1","transcript_path":"/h/chats/session-x-g1.json","cwd":"/repo","timestamp":"2026-01-01T10:00:00.123Z"`
	c := func(verb, event, extra string, ht agent.HookType, want agent.HookInput) agenttest.HookCase {
		want.HookType, want.SessionID, want.SessionRef, want.Cwd, want.EventName = ht, "g1", "/h/chats/session-x-g1.json", "/repo", event
		return agenttest.HookCase{Verb: verb, Payload: `{` + base + `,"hook_event_name":"` + event + `"` + extra + `}`, Want: want}
	}
	return []agenttest.HookCase{
		c("session-start", "SessionStart", `,"source":"resume"`, agent.HookSessionStart, agent.HookInput{Source: "resume"}),
		c("session-end", "SessionEnd", `,"reason":"exit"`, agent.HookSessionEnd, agent.HookInput{Reason: "exit"}),
		c("before-agent", "BeforeAgent", `,"prompt":"write tests"`, agent.HookUserPromptSubmit, agent.HookInput{UserPrompt: "write tests"}),
		c("after-agent", "AfterAgent", `,"prompt":"write tests","prompt_response":"done","stop_hook_active":false`, agent.HookStop, agent.HookInput{UserPrompt: "write tests", LastAssistantMessage: "done", HasLastAssistantMessage: true}),
		c("before-model", "BeforeModel", `,"llm_request":{"model":"gemini-2.5-pro","messages":[]}`, agent.HookBeforeModel, agent.HookInput{}),
		c("after-model", "AfterModel", `,"llm_request":{},"llm_response":{"candidates":[]}`, agent.HookAfterModel, agent.HookInput{}),
		c("before-tool-selection", "BeforeToolSelection", `,"llm_request":{}`, agent.HookBeforeToolSelection, agent.HookInput{}),
		c("before-tool", "BeforeTool", `,"tool_name":"write_file","tool_input":{"file_path":"a.txt","content":"x"}`, agent.HookPreToolUse,
			agent.HookInput{ToolName: "write_file", ToolInput: []byte(`{"file_path":"a.txt","content":"x"}`)}),
		c("after-tool", "AfterTool", `,"tool_name":"write_file","tool_input":{"file_path":"a.txt"},"tool_response":{"llmContent":"ok","returnDisplay":"ok","error":null}`, agent.HookPostToolUse,
			agent.HookInput{ToolName: "write_file", ToolInput: []byte(`{"file_path":"a.txt"}`), ToolResponse: []byte(`{"llmContent":"ok","returnDisplay":"ok","error":null}`)}),
		c("pre-compress", "PreCompress", `,"trigger":"auto"`, agent.HookPreCompress, agent.HookInput{}),
		c("notification", "Notification", `,"notification_type":"ToolPermission","message":"allow?","details":{}`, agent.HookNotification, agent.HookInput{}),
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	agenttest.Run(t, geminiFixture(t))
}
