package copilotcli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/copilotcli"
)

func newWithEnv(env map[string]string, home string) agent.Agent {
	a := copilotcli.New()
	a.Getenv = func(k string) string { return env[k] }
	a.UserHomeDir = func() (string, error) { return home, nil }
	return a
}

func ev(typ, id, ts, data string) string {
	return `{"type":"` + typ + `","data":` + data + `,"id":"` + id + `","timestamp":"` + ts + `","parentId":null}`
}

var testSession = strings.Join([]string{
	ev("session.start", "e0", "2026-12-04T22:33:37.567Z", `{"sessionId":"fc2bdcc8-ec3d-4166-a964-88ac3d233895","producer":"copilot-agent","copilotVersion":"1.0.102"}`),
	ev("hook.start", "e1", "2026-12-04T22:33:37.708Z", `{"hookType":"sessionStart","input":{"prompt":"not this"}}`),
	ev("user.message", "e2", "2026-12-04T22:33:38.551Z", `{"content":"make hello","transformedContent":"<current_datetime>x</current_datetime>\n\nmake hello"}`),
	ev("session.usage_record", "e3", "2026-12-04T22:33:38.992Z", `{"usage":{"inputTokens":100,"outputTokens":20,"cacheReadTokens":30,"cacheWriteTokens":0}}`),
	ev("assistant.message", "e4", "2026-12-04T22:33:38.998Z", `{"content":"","toolRequests":[{"toolCallId":"call_1","name":"create","arguments":{"path":"/repo/hello.txt","file_text":"hello\n"}}]}`),
	ev("tool.execution_complete", "e5", "2026-12-04T22:33:42.098Z", `{"toolCallId":"call_1","success":true,"result":{"content":"Created"}}`),
	ev("assistant.message", "e6", "2026-12-04T22:33:49.594Z", `{"content":"Done.","toolRequests":[]}`),
}, "\n") + "\n"

func copilotFixture(t *testing.T) agenttest.Fixture {
	return agenttest.Fixture{
		NewWithEnv:    newWithEnv,
		SessionDirEnv: copilotcli.EnvTestSessionDir,
		StorageDir:    ".copilot",
		SettingsPath:  copilotcli.HooksPath,
		ForeignSettings: map[string]string{
			"foreign-hooks": "{\n  \"version\": 1,\n  \"hooks\": {\n    \"agentStop\": [\n      {\"type\": \"command\", \"bash\": \"notify-send done\", \"timeoutSec\": 5}\n    ]\n  }\n}\n",
		},
		Hooks:            hookCases(),
		WrongTypePayload: `{"sessionId": 42}`,
		Session: agenttest.SessionCase{
			ID: "fc2bdcc8-ec3d-4166-a964-88ac3d233895", Data: []byte(testSession),
			LastPrompt: "make hello", LastAssistant: "Done.",
			ModifiedFiles: []string{"/repo/hello.txt"},
			FileName:      "fc2bdcc8-ec3d-4166-a964-88ac3d233895.jsonl",
			LastTime:      agent.ParseTime("2026-12-04T22:33:49.594Z"),
		},
		TranscriptFiles: eventFiles(t),
		AppendEntry: func(i int) []byte {
			return []byte(ev("user.message", fmt.Sprint("x", i), "2026-12-04T22:40:00Z", fmt.Sprintf(`{"content":"prompt %d"}`, i)))
		},
	}
}

func hookCases() []agenttest.HookCase {
	const base = `"sessionId":"p1","timestamp":1796423617708,"cwd":"/repo"`
	at := time.UnixMilli(1796423617708)
	c := func(verb, event, extra string, ht agent.HookType, want agent.HookInput) agenttest.HookCase {
		want.HookType, want.SessionID, want.Cwd, want.EventName, want.Timestamp = ht, "p1", "/repo", event, at
		return agenttest.HookCase{Verb: verb, Payload: `{` + base + extra + `}`, Want: want}
	}
	return []agenttest.HookCase{
		c("session-start", "sessionStart", `,"source":"new","initialPrompt":"hi"`, agent.HookSessionStart, agent.HookInput{Source: "new"}),
		c("user-prompt-submitted", "userPromptSubmitted", `,"prompt":"write tests"`, agent.HookUserPromptSubmit, agent.HookInput{UserPrompt: "write tests"}),
		c("agent-stop", "agentStop", `,"transcriptPath":"/h/.copilot/session-state/p1/events.jsonl","stopReason":"end_turn","stop_hook_active":false`, agent.HookStop,
			agent.HookInput{SessionRef: "/h/.copilot/session-state/p1/events.jsonl"}),
		c("session-end", "sessionEnd", `,"reason":"complete"`, agent.HookSessionEnd, agent.HookInput{Reason: "complete"}),
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	fx := copilotFixture(t)
	// The suite's agent has its own home: the events file derived for a
	// payload without transcriptPath lies there.
	agenttest.Run(t, fx)
}

// TestDerivedTranscriptPath: only agentStop names the events file; the
// other events get the file where Copilot keeps the session's events.
func TestDerivedTranscriptPath(t *testing.T) {
	t.Parallel()
	a := newWithEnv(map[string]string{copilotcli.EnvHome: "/cp"}, "/home/u")
	in, err := a.ParseHookInput(agent.HookUserPromptSubmit, strings.NewReader(`{"sessionId":"p1","prompt":"x"}`))
	if err != nil || in.SessionRef != "/cp/session-state/p1/events.jsonl" {
		t.Errorf("SessionRef = %q, %v", in.SessionRef, err)
	}
	in, err = a.ParseHookInput(agent.HookUserPromptSubmit, strings.NewReader(`{"sessionId":"../x","prompt":"x"}`))
	if err != nil || in.SessionRef != "" {
		t.Errorf("a session id with a path in it gave SessionRef %q, %v", in.SessionRef, err)
	}
}

// TestRealTranscript scans the events Copilot CLI 1.0.102 wrote over three
// turns: prompts, the files create and edit wrote, tokens (100 in, 20 out
// per model call).
func TestRealTranscript(t *testing.T) {
	t.Parallel()
	dir := agenttest.TranscriptFixtureDir(t, "copilot")
	a := copilotcli.New()
	an, err := a.ScanTranscript(filepath.Join(dir, "session-state-events.jsonl"), agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	if len(an.Prompts) != 3 || an.Prompts[0] != "SCRIPT:main DIR=/home/dev/project please do the scripted steps" {
		t.Errorf("prompts %q", an.Prompts)
	}
	if !reflect.DeepEqual(an.ModifiedFiles, []string{"/home/dev/project/hello.txt", "/home/dev/project/turn2.txt"}) {
		t.Errorf("files %q", an.ModifiedFiles)
	}
	if an.Tokens.InputTokens != 100*an.Tokens.APICallCount || an.Tokens.OutputTokens != 20*an.Tokens.APICallCount || an.Tokens.APICallCount == 0 {
		t.Errorf("tokens %+v", an.Tokens)
	}
	first, err := a.ScanTranscript(filepath.Join(dir, "turn1-events-snapshot-at-agentStop.jsonl"), agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	if first.LastAssistant != "All done (main turn). I wrote hello.txt and bash.txt." {
		t.Errorf("turn 1 at agentStop: last assistant %q", first.LastAssistant)
	}
}

// eventFiles returns the events files among the transcript fixtures.
func eventFiles(t *testing.T) []string {
	var out []string
	for _, p := range agenttest.TranscriptFixtures(t, "copilot") {
		if strings.HasSuffix(p, ".jsonl") {
			out = append(out, p)
		}
	}
	return out
}

// TestWatchTurnEnd: the turn has ended once the agentStop hook's
// hook.start is in the events file after the turn's start.
func TestWatchTurnEnd(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	prev := ev("hook.start", "h0", "2026-12-04T22:33:30Z", `{"hookType":"agentStop"}`) + "\n"
	if err := os.WriteFile(path, []byte(prev), 0o600); err != nil {
		t.Fatal(err)
	}
	a := copilotcli.New()
	check := a.WatchTurnEnd(path, agent.Position{Entries: 1, Offset: int64(len(prev))}, agent.TurnEnd{})
	appendTo := func(s string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	appendTo(ev("user.message", "u1", "2026-12-04T22:33:38Z", `{"content":"go"}`) + "\n")
	if done, err := check(); err != nil || done {
		t.Fatalf("before the turn's end: %v, %v (an earlier turn's agentStop counted?)", done, err)
	}
	appendTo(ev("assistant.message", "a1", "2026-12-04T22:33:39Z", `{"content":"done"}`) + "\n" + ev("hook.start", "h1", "2026-12-04T22:33:40Z", `{"hookType":"agentStop"}`)[:20])
	if done, _ := check(); done {
		t.Fatal("a half-written line ended the turn")
	}
	appendTo(ev("hook.start", "h1", "2026-12-04T22:33:40Z", `{"hookType":"agentStop"}`)[20:] + "\n")
	if done, err := check(); err != nil || !done {
		t.Fatalf("after agentStop's hook.start: %v, %v", done, err)
	}
}
