package external_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/external"
	"github.com/entirecli/entire/agent/external/externaltest"
)

// TestMain runs the fake agent when the test binary is started as
// entire-agent-<name> (see program), else the tests.
func TestMain(m *testing.M) {
	if strings.HasPrefix(filepath.Base(os.Args[0]), externaltest.Prefix) {
		os.Exit(externaltest.MainProcess())
	}
	os.Exit(m.Run())
}

// program returns a directory holding entire-agent-<name>, a link to the
// test binary, and the link's path.
func program(t testing.TB, name string) (dir, path string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	path = filepath.Join(dir, externaltest.Prefix+name)
	if err := os.Symlink(self, path); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// discover finds the fake agent acme in a PATH of its own, with env as
// its environment (besides PATH and HOME).
func discover(t testing.TB, env map[string]string, home, repo string) *external.Agent {
	t.Helper()
	dir, _ := program(t, "acme")
	environ := []string{"HOME=" + home, "PATH=" + dir + ":/usr/bin:/bin"}
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	found := external.Discover(context.Background(), external.Options{PATH: dir, RepoRoot: repo, StateDir: t.TempDir(),
		Environ: func() []string { return environ }})
	if len(found) != 1 || found[0].Agent == nil {
		t.Fatalf("discover = %+v", found)
	}
	return found[0].Agent
}

var acmeSession = strings.Join([]string{
	externaltest.Line("user", "make hello", nil, 0, 0),
	externaltest.Line("assistant", "Writing it.", []string{"/repo/hello.txt"}, 10, 5),
	externaltest.Line("assistant", "Done.", nil, 3, 2),
}, "\n") + "\n"

func acmeFixture(t *testing.T) agenttest.Fixture {
	registered := discover(t, nil, t.TempDir(), t.TempDir())
	external.Register([]external.Found{{Name: "acme", Agent: registered}})
	return agenttest.Fixture{
		NewWithEnv: func(env map[string]string, home string) agent.Agent {
			return discover(t, env, home, t.TempDir())
		},
		SessionDirEnv: "ACME_SESSION_DIR",
		StorageDir:    ".acme",
		SettingsPath:  ".acme/hooks.json",
		External:      true,
		Hooks: []agenttest.HookCase{
			{Verb: "session-start", Payload: `{"session":"s1"}`, Want: agent.HookInput{HookType: agent.HookSessionStart, SessionID: "s1", EventName: "session-start"}},
			{Verb: "prompt", Payload: `{"session":"s1","prompt":"write tests"}`, Want: agent.HookInput{HookType: agent.HookUserPromptSubmit, SessionID: "s1", EventName: "prompt", UserPrompt: "write tests"}},
			{Verb: "stop", Payload: `{"session":"s1"}`, Want: agent.HookInput{HookType: agent.HookStop, SessionID: "s1", EventName: "stop"}},
			{Verb: "session-end", Payload: `{"session":"s1"}`, Want: agent.HookInput{HookType: agent.HookSessionEnd, SessionID: "s1", EventName: "session-end"}},
			{Verb: "tool", Payload: `{"session":"s1"}`},
		},
		Session: agenttest.SessionCase{
			ID: "s1", Data: []byte(acmeSession), LastPrompt: "make hello", LastAssistant: "Done.",
			ModifiedFiles: []string{"/repo/hello.txt"}, FileName: "s1.jsonl",
		},
	}
}

func TestConformance(t *testing.T) {
	agenttest.Run(t, acmeFixture(t))
}
