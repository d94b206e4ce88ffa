package pi_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/pi"
)

func newWithEnv(env map[string]string, home string) agent.Agent {
	a := pi.New()
	a.Getenv = func(k string) string { return env[k] }
	a.UserHomeDir = func() (string, error) { return home, nil }
	return a
}

// msg is one message entry of a Pi session file.
func msg(id, parent, ts, m string) string {
	return `{"type":"message","id":"` + id + `","parentId":"` + parent + `","timestamp":"` + ts + `","message":` + m + `}`
}

var testSession = strings.Join([]string{
	`{"type":"session","version":3,"id":"01a2432e-61de-74b3-84c7-1228277401a8","timestamp":"2026-12-04T22:30:42.911Z","cwd":"/repo"}`,
	`{"type":"model_change","id":"m0","parentId":null,"timestamp":"2026-12-04T22:30:43.050Z","provider":"fake","modelId":"fake-model"}`,
	msg("u1", "m0", "2026-12-04T22:30:47Z", `{"role":"user","content":[{"type":"text","text":"make hello"}]}`),
	msg("a1", "u1", "2026-12-04T22:30:48Z", `{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"write","arguments":{"path":"/repo/hello.txt","content":"hello\n"}}],"usage":{"input":100,"output":20,"cacheRead":30,"cacheWrite":0}}`),
	msg("r1", "a1", "2026-12-04T22:30:49Z", `{"role":"toolResult","toolCallId":"call_1","toolName":"write","content":[{"type":"text","text":"ok"}],"isError":false}`),
	msg("a2", "r1", "2026-12-04T22:30:50Z", `{"role":"assistant","content":[{"type":"text","text":"Done."}],"usage":{"input":110,"output":5,"cacheRead":0,"cacheWrite":0}}`),
}, "\n") + "\n"

func piFixture(t *testing.T) agenttest.Fixture {
	return agenttest.Fixture{
		NewWithEnv:    newWithEnv,
		SessionDirEnv: pi.EnvTestSessionDir,
		StorageDir:    filepath.Join(".pi", "agent"),
		SettingsPath:  pi.ExtensionPath,
		Plugin:        true,
		Hooks:         hookCases(),
		Session: agenttest.SessionCase{
			ID: "01a2432e-61de-74b3-84c7-1228277401a8", Data: []byte(testSession),
			LastPrompt: "make hello", LastAssistant: "Done.",
			ModifiedFiles: []string{"/repo/hello.txt"},
			FileName:      "2026-12-04T22-30-42-911Z_01a2432e-61de-74b3-84c7-1228277401a8.jsonl", HeaderNamesRepo: true,
			LastTime: agent.ParseTime("2026-12-04T22:30:50Z"),
		},
		TranscriptFiles: agenttest.TranscriptFixtures(t, "pi"),
		AppendEntry: func(i int) []byte {
			return []byte(msg(fmt.Sprint("x", i), "a2", "2026-12-04T22:40:00Z", fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":"prompt %d"}]}`, i)))
		},
	}
}

func hookCases() []agenttest.HookCase {
	const ref = "/h/.pi/agent/sessions/--repo--/s.jsonl"
	c := func(verb, event, extra string, ht agent.HookType, want agent.HookInput) agenttest.HookCase {
		want.HookType, want.SessionID, want.SessionRef, want.Cwd, want.EventName = ht, "p1", ref, "/repo", event
		return agenttest.HookCase{Verb: verb, Payload: `{"hook_event_name":"` + event + `","session_id":"p1","transcript_path":"` + ref + `","cwd":"/repo"` + extra + `}`, Want: want}
	}
	return []agenttest.HookCase{
		c("session-start", "session_start", `,"source":"startup"`, agent.HookSessionStart, agent.HookInput{Source: "startup"}),
		c("user-prompt-submit", "input", `,"prompt":"write tests"`, agent.HookUserPromptSubmit, agent.HookInput{UserPrompt: "write tests"}),
		c("pre-tool", "tool_call", `,"tool_name":"write","tool_use_id":"call_1","tool_input":{"path":"a"}`, agent.HookPreToolUse,
			agent.HookInput{ToolName: "write", ToolUseID: "call_1", ToolInput: []byte(`{"path":"a"}`)}),
		c("post-tool", "tool_result", `,"tool_name":"write","tool_use_id":"call_1"`, agent.HookPostToolUse, agent.HookInput{ToolName: "write", ToolUseID: "call_1"}),
		c("stop", "agent_end", ``, agent.HookStop, agent.HookInput{}),
		c("compact", "session_compact", ``, agent.HookPreCompress, agent.HookInput{}),
		c("session-end", "session_shutdown", `,"reason":"quit"`, agent.HookSessionEnd, agent.HookInput{Reason: "quit"}),
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	agenttest.Run(t, piFixture(t))
}

// TestRealTranscript scans the session Pi 0.73.1 wrote over three turns:
// the prompts, the files write and edit named, the tokens (100 in, 20 out
// per model call), the answer at agent_end.
func TestRealTranscript(t *testing.T) {
	t.Parallel()
	dir := agenttest.TranscriptFixtureDir(t, "pi")
	a := pi.New()
	an, err := a.ScanTranscript(filepath.Join(dir, "2026-12-04T22-30-42-911Z_01a2432e-61de-74b3-84c7-1228277401a8.jsonl"), agent.Position{})
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
	first, err := a.ScanTranscript(filepath.Join(dir, "turn1-session-snapshot-at-agent_end.jsonl"), agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	if first.LastAssistant != "All done (main turn). I wrote hello.txt and bash.txt." {
		t.Errorf("turn 1 at agent_end: last assistant %q", first.LastAssistant)
	}
}

// TestResumeDetectedFromSessionFile: Pi says "startup" when it resumes a
// session; a session file that holds messages makes it a resume.
func TestResumeDetectedFromSessionFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := pi.New()
	parse := func(path string) string {
		in, err := a.ParseHookInput(agent.HookSessionStart, strings.NewReader(`{"session_id":"p1","transcript_path":"`+path+`","source":"startup"}`))
		if err != nil {
			t.Fatal(err)
		}
		return in.Source
	}
	fresh := filepath.Join(dir, "fresh.jsonl")
	if got := parse(fresh); got != "startup" {
		t.Errorf("a session with no file yet: %q", got)
	}
	old := filepath.Join(dir, "old.jsonl")
	if err := os.WriteFile(old, []byte(testSession), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := parse(old); got != "resume" {
		t.Errorf("a session file with messages: %q", got)
	}
}

// TestRestoredSessionRunsInItsClone: a session restored into another
// clone is found where Pi looks for that clone's sessions, and its header
// names the clone, where Pi runs it.
func TestRestoredSessionRunsInItsClone(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a := newWithEnv(nil, home).(*pi.Agent)
	s := &agent.AgentSession{SessionID: "01a2432e-61de-74b3-84c7-1228277401a8", RepoPath: "/work/clone", NativeData: []byte(testSession)}
	if err := a.WriteSession(s); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, ".pi", "agent", "sessions", "--work-clone--", "2026-12-04T22-30-42-911Z_01a2432e-61de-74b3-84c7-1228277401a8.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, rest, _ := strings.Cut(string(data), "\n")
	if !strings.Contains(first, `"cwd":"/work/clone"`) || rest != strings.SplitN(testSession, "\n", 2)[1] {
		t.Errorf("restored session:\n%s", data)
	}
}

// TestBranchedTurn: a turn after `/tree` took the session back to an
// earlier entry appends entries whose parent is that entry: scanned from
// the previous turn's end, the turn is those lines (its prompt, its
// files), not the abandoned branch.
func TestBranchedTurn(t *testing.T) {
	t.Parallel()
	second := msg("u2", "a2", "2026-12-04T22:31:00Z", `{"role":"user","content":[{"type":"text","text":"second"}]}`) + "\n" +
		msg("a3", "u2", "2026-12-04T22:31:01Z", `{"role":"assistant","content":[{"type":"toolCall","id":"c8","name":"write","arguments":{"path":"/repo/second.txt","content":"x"}}]}`) + "\n"
	// Back to a2 with /tree, then a new prompt on another branch.
	third := msg("u3", "a2", "2026-12-04T22:32:00Z", `{"role":"user","content":[{"type":"text","text":"instead"}]}`) + "\n" +
		msg("a4", "u3", "2026-12-04T22:32:01Z", `{"role":"assistant","content":[{"type":"toolCall","id":"c9","name":"edit","arguments":{"path":"/repo/other.txt","edits":[]}}]}`) + "\n"
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(testSession+second+third), 0o600); err != nil {
		t.Fatal(err)
	}
	a := pi.New()
	upToSecond, err := a.ScanTranscript(path, agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	if len(upToSecond.Prompts) != 3 {
		t.Fatalf("whole file: prompts %q", upToSecond.Prompts)
	}
	from := agent.Position{Entries: strings.Count(testSession+second, "\n"), Offset: int64(len(testSession + second))}
	turn, err := a.ScanTranscript(path, from)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(turn.Prompts, []string{"instead"}) || !reflect.DeepEqual(turn.ModifiedFiles, []string{"/repo/other.txt"}) {
		t.Errorf("the branched turn: prompts %q, files %q", turn.Prompts, turn.ModifiedFiles)
	}
}
