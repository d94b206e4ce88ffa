package antigravity_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/antigravity"
)

func newWithEnv(env map[string]string, home string) agent.Agent {
	a := antigravity.New()
	a.Getenv = func(k string) string { return env[k] }
	a.UserHomeDir = func() (string, error) { return home, nil }
	return a
}

const convID = "3f6c2a1e-9b8d-4e7f-a6c5-1d2e3f4a5b6c"

var transcriptRef = "/home/dev/.gemini/antigravity-cli/brain/" + convID + "/.system_generated/logs/transcript_full.jsonl"

// payload returns the hand-written payload of an agy event
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
	`{"step_index":0,"source":"USER_EXPLICIT","type":"USER_INPUT","status":"DONE","created_at":"2026-12-05T10:00:00Z","content":"<USER_REQUEST>make hello</USER_REQUEST>"}`,
	`{"step_index":1,"source":"MODEL","type":"PLANNER_RESPONSE","status":"DONE","created_at":"2026-12-05T10:00:01Z","content":"","tool_calls":[{"name":"write_to_file","args":{"TargetFile":"/repo/hello.txt","CodeContent":"hello\n"}}]}`,
	`{"step_index":2,"source":"MODEL","type":"PLANNER_RESPONSE","status":"DONE","created_at":"2026-12-05T10:00:02Z","content":"Done."}`,
}, "\n") + "\n"

func hookCases(t testing.TB) []agenttest.HookCase {
	c := func(verb, event string, ht agent.HookType, want agent.HookInput) agenttest.HookCase {
		if ht != "" {
			want.HookType, want.SessionID, want.SessionRef, want.Cwd, want.EventName = ht, convID, transcriptRef, "/home/dev/project", verb
		}
		return agenttest.HookCase{Verb: verb, Payload: payload(t, event), Want: want}
	}
	return []agenttest.HookCase{
		c("pre-invocation", "PreInvocation", agent.HookPreToolUse, agent.HookInput{}),
		c("post-invocation", "PostInvocation", "", agent.HookInput{}),
		c("pre-tool-use", "PreToolUse", agent.HookPreToolUse, agent.HookInput{ToolName: "write_to_file",
			ToolInput: []byte(`{"TargetFile":"\"/home/dev/project/hello.txt\"","CodeContent":"hello\n","Overwrite":"false"}`)}),
		c("post-tool-use", "PostToolUse", agent.HookPostToolUse, agent.HookInput{}),
		c("stop", "Stop", agent.HookStop, agent.HookInput{}),
		{Verb: "stop", Payload: payload(t, "Stop-busy")},
	}
}

func agyFixture(t *testing.T) agenttest.Fixture {
	return agenttest.Fixture{
		NewWithEnv:    newWithEnv,
		SessionDirEnv: antigravity.EnvTestSessionDir,
		StorageDir:    ".gemini/antigravity-cli",
		SettingsPath:  antigravity.HooksPath,
		ForeignSettings: map[string]string{
			"foreign-hook": "{\n  \"audit\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"run_command\", \"hooks\": [{\"type\": \"command\", \"command\": \"./audit.sh\", \"timeout\": 10}]}\n    ]\n  }\n}\n",
		},
		Hooks: hookCases(t),
		Session: agenttest.SessionCase{
			ID: convID, Data: []byte(testSession), LastPrompt: "make hello", LastAssistant: "Done.",
			ModifiedFiles: []string{"/repo/hello.txt"}, FileName: convID + "/.system_generated/logs/transcript_full.jsonl",
			LastTime: agent.ParseTime("2026-12-05T10:00:02Z"),
		},
		TranscriptFiles: []string{filepath.Join("testdata", "transcripts", "transcript_full.jsonl")},
		AppendEntry: func(i int) []byte {
			return []byte(`{"step_index":9,"source":"USER_EXPLICIT","type":"USER_INPUT","status":"DONE","content":"<USER_REQUEST>prompt</USER_REQUEST>"}`)
		},
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	agenttest.Run(t, agyFixture(t))
}

// TestTranscript reads the hand-written transcript: the prompt out of its
// wrapper, the file written (its path encoded twice), the answer, no
// tokens.
func TestTranscript(t *testing.T) {
	t.Parallel()
	an, err := antigravity.New().ScanTranscript(filepath.Join("testdata", "transcripts", "transcript_full.jsonl"), agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(an.Prompts, []string{"make hello.txt"}) || !reflect.DeepEqual(an.ModifiedFiles, []string{"/home/dev/project/hello.txt"}) ||
		an.LastAssistant != "Created hello.txt." || len(an.ToolUses) != 2 || !an.Tokens.IsZero() {
		t.Errorf("analysis %+v", an)
	}
	if agent.ReportsTokens(antigravity.New()) || !agent.StartsPromptlessTurns(antigravity.New()) {
		t.Error("agy reports no tokens and starts turns without a prompt")
	}
}

// TestAnswers: PreToolUse must answer a decision (agy blocks the tool
// otherwise); everything else answers {}.
func TestAnswers(t *testing.T) {
	t.Parallel()
	a := antigravity.New()
	if got := strings.TrimSpace(string(a.WriteHookAnswer(agent.HookPreToolUse, nil))); got != `{"decision":"allow"}` {
		t.Errorf("PreToolUse answer %s", got)
	}
	if got := strings.TrimSpace(string(a.WriteHookAnswer(agent.HookStop, nil))); got != `{}` {
		t.Errorf("Stop answer %s", got)
	}
}
