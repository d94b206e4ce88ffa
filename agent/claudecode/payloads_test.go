package claudecode_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/claudecode"
)

// TestRealHookPayloads parses the payload Claude Code 2.1.197 sent to every
// verb (../shared/fixtures/hook-payloads/claude-code-2.1.197) and checks the
// normalized fields, and that the installed matcher of the verb matches the
// payload's tool.
func TestRealHookPayloads(t *testing.T) {
	t.Parallel()
	payloads := agenttest.HookPayloads(t, "claude-code-2.1.197", "claude-code-")
	const (
		session    = "9f9c7066-9ba1-4c7c-82a6-17bf5842c990"
		transcript = "/home/dev/.claude/projects/-home-dev-project/9f9c7066-9ba1-4c7c-82a6-17bf5842c990.jsonl"
		cwd        = "/home/dev/project"
		agentID    = "a2dc20974277ab476"
		agentInput = `{"description":"Write sub file","prompt":"SCRIPT:sub DIR=/home/dev/project please write sub.txt","subagent_type":"general-purpose"}`
	)
	// want holds the fields beyond the ones every payload has; tool
	// responses are checked field by field below.
	want := map[string]agent.HookInput{
		"session-start":      {Source: "startup"},
		"session-end":        {Reason: "other"},
		"user-prompt-submit": {UserPrompt: "SCRIPT:main DIR=/home/dev/project run the scripted main turn"},
		"stop":               {LastAssistantMessage: "All done (main turn). I wrote hello.txt, bash.txt and a subagent wrote sub.txt.", HasLastAssistantMessage: true},
		"pre-task":           {ToolName: "Agent", ToolUseID: "toolu_fake_0007", ToolInput: []byte(agentInput)},
		"post-task":          {ToolName: "Agent", ToolUseID: "toolu_fake_0007", ToolInput: []byte(agentInput)},
		"post-todo": {ToolName: "TaskCreate", ToolUseID: "toolu_fake_0004",
			ToolInput: []byte(`{"subject":"Run bash","description":"Run the bash step","activeForm":"Running bash"}`)},
		"post-tool": {ToolName: "Write", ToolUseID: "toolu_fake_0002",
			ToolInput: []byte(`{"file_path":"/home/dev/project/hello.txt","content":"hello\n"}`)},
		"subagent-start": {AgentID: agentID, SubagentType: "general-purpose"},
		"subagent-stop": {AgentID: agentID, SubagentType: "general-purpose", HasLastAssistantMessage: true,
			AgentTranscriptPath: "/home/dev/.claude/projects/-home-dev-project/9f9c7066-9ba1-4c7c-82a6-17bf5842c990/subagents/agent-a2dc20974277ab476.jsonl"},
	}
	a := claudecode.New()
	rows := map[string]claudecode.HookSpec{}
	for _, s := range claudecode.HookTable() {
		rows[s.Verb] = s
	}
	seen := map[string]bool{}
	for _, p := range payloads {
		t.Run(p.Verb, func(t *testing.T) {
			seen[p.Verb] = true
			w, ok := want[p.Verb]
			if !ok {
				t.Fatalf("%s: no expectations for verb %q", p.Name, p.Verb)
			}
			ht, ok := a.HookTypeForVerb(p.Verb)
			if !ok {
				t.Fatalf("%s: verb %q unknown", p.Name, p.Verb)
			}
			in, err := a.ParseHookInput(ht, bytes.NewReader(p.Data))
			if err != nil {
				t.Fatalf("parse %s: %v", p.Name, err)
			}
			row := rows[p.Verb]
			if in.ToolName != "" && row.Matcher != "" && !regexp.MustCompile("^(?:"+row.Matcher+")$").MatchString(in.ToolName) {
				t.Errorf("installed matcher %q does not match tool %q", row.Matcher, in.ToolName)
			}
			switch p.Verb {
			case "subagent-stop":
				checkConclusionMessage(t, in.LastAssistantMessage)
				in.LastAssistantMessage = ""
			case "pre-task", "post-task":
				task, err := claudecode.ParseTaskInput(in.ToolInput)
				if err != nil || task.SubagentType != "general-purpose" || task.Description != "Write sub file" || !claudecode.IsTaskTool(in.ToolName) {
					t.Errorf("task input %+v, %v", task, err)
				}
				if p.Verb == "post-task" {
					checkTaskResponse(t, in.ToolResponse, agentID)
				}
			case "post-todo":
				if call, ok, err := a.ParseTodoCall(in.ToolName, in.ToolInput, in.ToolResponse); !ok || err != nil || len(call.Created) != 1 || call.Created[0].ID != "1" || call.Created[0].Content != "Run bash" {
					t.Errorf("%s: todo call %+v, %v, %v", in.ToolName, call, ok, err)
				}
				if got := compactJSON(t, in.ToolResponse); string(got) != `{"task":{"id":"1","subject":"Run bash"}}` {
					t.Errorf("tool_response %s", got)
				}
			case "post-tool":
				var r struct {
					Type     string `json:"type"`
					FilePath string `json:"filePath"`
					Content  string `json:"content"`
				}
				if err := json.Unmarshal(in.ToolResponse, &r); err != nil || r.Type != "create" || r.FilePath != "/home/dev/project/hello.txt" || r.Content != "hello\n" {
					t.Errorf("tool_response %+v, %v", r, err)
				}
			}
			if in.RawData["hook_event_name"] != row.Event {
				t.Errorf("RawData not kept")
			}
			got := *in
			got.RawData, got.ToolResponse = nil, nil
			got.ToolInput = compactJSON(t, got.ToolInput)
			w.HookType, w.SessionID, w.SessionRef, w.Cwd, w.EventName = ht, session, transcript, cwd, row.Event
			w.ToolInput = compactJSON(t, w.ToolInput)
			if !reflect.DeepEqual(got, w) {
				t.Errorf("%s parsed\n%+v\nwant\n%+v", p.Name, got, w)
			}
		})
	}
	for _, verb := range a.GetHookNames() {
		if !seen[verb] {
			t.Errorf("no real payload for installed verb %q", verb)
		}
	}
}

// checkConclusionMessage checks SubagentStop's last_assistant_message: the
// subagent's final text with its conclusion block.
func checkConclusionMessage(t *testing.T, msg string) {
	t.Helper()
	if !strings.HasPrefix(msg, "Subagent finished: sub.txt written.\n\n<entire:conclusion>\nstatus: success\n") ||
		!strings.HasSuffix(msg, "confidence: 0.9\n</entire:conclusion>") {
		t.Errorf("last_assistant_message %q", msg)
	}
}

// checkTaskResponse checks the Agent tool's tool_response (post-task).
func checkTaskResponse(t *testing.T, raw []byte, agentID string) {
	t.Helper()
	r, err := claudecode.ParseTaskResponse(raw)
	if err != nil || r.Status != "completed" || r.AgentID != agentID || r.TotalTokens != 120 {
		t.Errorf("task response %+v, %v", r, err)
	}
	var full struct {
		AgentType string `json:"agentType"`
		Content   []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &full); err != nil || full.AgentType != "general-purpose" || len(full.Content) != 1 ||
		!strings.HasPrefix(full.Content[0].Text, "Subagent finished: sub.txt written.") {
		t.Errorf("tool_response %+v, %v", full, err)
	}
}

// compactJSON compacts raw JSON; nil stays nil.
func compactJSON(t *testing.T, raw []byte) []byte {
	t.Helper()
	if raw == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return buf.Bytes()
}
