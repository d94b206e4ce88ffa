package opencode_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/opencode"
)

func newWithEnv(env map[string]string, home string) agent.Agent {
	a := opencode.New()
	a.Getenv = func(k string) string { return env[k] }
	a.UserHomeDir = func() (string, error) { return home, nil }
	return a
}

const sessionID = "ses_dbcd393ddffej6G26lvJUFmdAu"

var testSession = strings.Join([]string{
	`{"info":{"id":"` + sessionID + `","directory":"/repo","title":"t","version":"1.18.33"}}`,
	`{"info":{"id":"msg_1","role":"user","time":{"created":1796423315117}},"parts":[{"type":"text","text":"\"make hello\""},{"type":"text","text":"file contents","synthetic":true}]}`,
	`{"info":{"id":"msg_2","role":"assistant","time":{"created":1796423316638}},"parts":[{"type":"step-start"},{"type":"tool","tool":"write","callID":"call_1","state":{"status":"completed","input":{"filePath":"/repo/hello.txt","content":"hello\n"}}},{"type":"step-finish","tokens":{"input":100,"output":20,"reasoning":0,"cache":{"read":30,"write":0}}}]}`,
	`{"info":{"id":"msg_3","role":"assistant","time":{"created":1796423326247}},"parts":[{"type":"text","text":"Done."},{"type":"step-finish","tokens":{"input":110,"output":5,"reasoning":0,"cache":{"read":0,"write":0}}}]}`,
}, "\n") + "\n"

func opencodeFixture(t *testing.T) agenttest.Fixture {
	return agenttest.Fixture{
		NewWithEnv:    newWithEnv,
		SessionDirEnv: opencode.EnvTestSessionDir,
		StorageDir:    filepath.Join(".local", "share", "opencode"),
		SettingsPath:  opencode.PluginPath,
		Plugin:        true,
		Hooks:         hookCases(),
		Session: agenttest.SessionCase{
			ID: sessionID, Data: []byte(testSession),
			LastPrompt: "make hello", LastAssistant: "Done.",
			ModifiedFiles: []string{"/repo/hello.txt"},
			FileName:      sessionID + ".jsonl",
			LastTime:      agent.ParseTime("2026-12-04T22:28:46.247Z"),
		},
		AppendEntry: func(i int) []byte {
			return []byte(fmt.Sprintf(`{"info":{"id":"msg_x%d","role":"user","time":{"created":1796423400000}},"parts":[{"type":"text","text":"prompt %d"}]}`, i, i))
		},
	}
}

func hookCases() []agenttest.HookCase {
	c := func(verb, event, extra string, ht agent.HookType, want agent.HookInput) agenttest.HookCase {
		want.HookType, want.SessionID, want.Cwd = ht, "ses_p1", "/repo"
		return agenttest.HookCase{Verb: verb, Payload: `{"cwd":"/repo","session_id":"ses_p1"` + extra + `}`, Want: want}
	}
	return []agenttest.HookCase{
		c("session-start", "session.created", `,"source":"startup"`, agent.HookSessionStart, agent.HookInput{Source: "startup"}),
		c("user-prompt-submit", "chat.message", `,"prompt":"\"write tests\""`, agent.HookUserPromptSubmit, agent.HookInput{UserPrompt: "write tests"}),
		c("pre-tool", "tool.execute.before", `,"tool_name":"write","tool_use_id":"call_1","tool_input":{"filePath":"a"}`, agent.HookPreToolUse,
			agent.HookInput{ToolName: "write", ToolUseID: "call_1", ToolInput: []byte(`{"filePath":"a"}`)}),
		c("post-tool", "tool.execute.after", `,"tool_name":"write","tool_use_id":"call_1"`, agent.HookPostToolUse, agent.HookInput{ToolName: "write", ToolUseID: "call_1"}),
		c("stop", "session.idle", ``, agent.HookStop, agent.HookInput{}),
		c("compact", "session.compacted", ``, agent.HookPreCompress, agent.HookInput{}),
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	agenttest.Run(t, opencodeFixture(t))
}

// TestStopWritesTheSession: the stop payload carries the session as
// `opencode export` prints it; the hook keeps it as JSONL, one message a
// line, where the other events' SessionRef points, and the rest of the
// payload parses as usual.
func TestStopWritesTheSession(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := newWithEnv(map[string]string{opencode.EnvTestSessionDir: dir}, t.TempDir())
	export, err := os.ReadFile(filepath.Join(agenttest.TranscriptFixtureDir(t, "opencode"), "opencode-export-session.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(export, &doc); err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(map[string]any{"cwd": "/home/dev/project", "session_id": sessionID, "info": doc["info"], "messages": doc["messages"]})
	in, err := a.ParseHookInput(agent.HookStop, strings.NewReader(string(payload)))
	if err != nil {
		t.Fatal(err)
	}
	if in.SessionRef != filepath.Join(dir, sessionID+".jsonl") || in.Cwd != "/home/dev/project" {
		t.Fatalf("stop input %+v", in)
	}
	an, err := a.(agent.TranscriptScanner).ScanTranscript(in.SessionRef, agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	if len(an.Prompts) != 3 || an.Prompts[0] != "SCRIPT:main DIR=/home/dev/project please do the scripted steps" {
		t.Errorf("prompts %q", an.Prompts)
	}
	if !reflect.DeepEqual(an.ModifiedFiles, []string{"/home/dev/project/hello.txt", "/home/dev/project/turn2.txt"}) {
		t.Errorf("files %q", an.ModifiedFiles)
	}
	if an.Tokens.APICallCount == 0 || an.Tokens.InputTokens != 100*an.Tokens.APICallCount || an.Tokens.OutputTokens != 20*an.Tokens.APICallCount {
		t.Errorf("tokens %+v", an.Tokens)
	}
	// A later turn's stop rewrites the copy with the same lines first.
	before, _ := os.ReadFile(in.SessionRef)
	if _, err := a.ParseHookInput(agent.HookStop, strings.NewReader(string(payload))); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(in.SessionRef); string(after) != string(before) {
		t.Error("the same session gave another copy")
	}
	// A session ID that is not OpenCode's names no file.
	in, err = a.ParseHookInput(agent.HookStop, strings.NewReader(`{"session_id":"../../x","info":{"id":"x"},"messages":[]}`))
	if err != nil || in.SessionRef != "" {
		t.Errorf("a session id with a path in it: %q, %v", in.SessionRef, err)
	}
}

// TestScanAfterEarlierMessageGrew: OpenCode updates a prompt's message
// after its turn (its summary of the diffs), so the copy's earlier lines
// change length between turn ends; a scan from the earlier turn's end
// still reads exactly the new turn.
func TestScanAfterEarlierMessageGrew(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), sessionID+".jsonl")
	if err := os.WriteFile(path, []byte(testSession), 0o600); err != nil {
		t.Fatal(err)
	}
	a := opencode.New()
	first, err := a.ScanTranscript(path, agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	grown := strings.Replace(testSession, `"role":"user","time":{"created":1796423315117}`,
		`"role":"user","time":{"created":1796423315117},"summary":{"diffs":[{"file":"hello.txt","additions":1}]}`, 1)
	next := `{"info":{"id":"msg_4","role":"user","time":{"created":1796423400000}},"parts":[{"type":"text","text":"\"second\""}]}` + "\n" +
		`{"info":{"id":"msg_5","role":"assistant","time":{"created":1796423400100}},"parts":[{"type":"tool","tool":"write","callID":"c2","state":{"input":{"filePath":"/repo/two.txt"}}},{"type":"step-finish","tokens":{"input":7,"output":3,"reasoning":0,"cache":{"read":0,"write":0}}}]}` + "\n"
	if err := os.WriteFile(path, []byte(grown+next), 0o600); err != nil {
		t.Fatal(err)
	}
	turn, err := a.ScanTranscript(path, first.To)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(turn.Prompts, []string{"second"}) || !reflect.DeepEqual(turn.ModifiedFiles, []string{"/repo/two.txt"}) || turn.Tokens.InputTokens != 7 {
		t.Errorf("the second turn: prompts %q, files %q, tokens %+v", turn.Prompts, turn.ModifiedFiles, turn.Tokens)
	}
	if want := int64(len(grown + next)); turn.To.Offset != want || turn.To.Entries != strings.Count(grown+next, "\n") {
		t.Errorf("end %+v, want offset %d, %d lines", turn.To, want, strings.Count(grown+next, "\n"))
	}
}
