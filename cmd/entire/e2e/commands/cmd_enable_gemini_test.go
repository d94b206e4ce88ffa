package commands

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent/geminicli"
	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// geminiHooks are the events and commands `entire enable --agent gemini`
// installs.
var geminiHooks = map[string][]string{
	"SessionStart": {"entire hooks gemini session-start || exit 1"},
	"SessionEnd":   {"entire hooks gemini session-end || exit 1", "entire hooks gemini session-end || exit 1"},
	"BeforeAgent":  {"entire hooks gemini before-agent || exit 1"},
	"AfterAgent":   {"entire hooks gemini after-agent || exit 1"},
	"BeforeTool":   {"entire hooks gemini before-tool || exit 1"},
	"AfterTool":    {"entire hooks gemini after-tool || exit 1"},
}

// checkGeminiHooks checks that .gemini/settings.json has exactly
// geminiHooks, plus the foreign events.
func checkGeminiHooks(t *testing.T, dir string, foreign map[string][]string) {
	t.Helper()
	want := maps.Clone(geminiHooks)
	maps.Copy(want, foreign)
	g := readJSON(t, filepath.Join(dir, ".gemini", "settings.json"))
	hooks, _ := g["hooks"].(map[string]any)
	got := map[string][]string{}
	for event := range hooks {
		got[event] = hookCommands(g, event)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("gemini hooks\n%q\nwant\n%q", got, want)
	}
}

// writeOldGeminiInstall writes the .gemini/settings.json of an enable
// before the hooks that only logged were dropped (SPEC 2.2: 12 handlers
// over 11 events, the kept ones with today's commands), plus a foreign hook.
func writeOldGeminiInstall(t *testing.T, dir string) {
	t.Helper()
	type handler struct {
		Name    string `json:"name"`
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	type group struct {
		Matcher string    `json:"matcher,omitempty"`
		Hooks   []handler `json:"hooks"`
	}
	hooks := map[string][]group{}
	for _, s := range geminicli.HookTable() {
		hooks[s.Event] = append(hooks[s.Event], group{s.Matcher, []handler{{s.Name, "command", geminicli.HookCommand(s.Verb, false)}}})
	}
	if len(hooks) != 11 {
		t.Fatalf("old install has %d events, want 11", len(hooks))
	}
	hooks["AfterModel"] = append(hooks["AfterModel"], group{"", []handler{{"mine", "command", "./log-model.sh"}}})
	b, err := json.MarshalIndent(map[string]any{"hooksConfig": map[string]any{"enabled": true}, "hooks": hooks}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, dir, ".gemini/settings.json", string(b))
}

// An install of the 12 handlers of SPEC 2.2 is rewritten to the 7 of
// today by `entire enable --agent gemini` and by the refresh of a plain
// `entire enable` in an enabled repository, keeping the foreign hook; a
// second enable changes nothing.
func TestEnableGeminiRewritesOldInstall(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"enable", "--agent", "gemini"}, {"enable"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			dir := gittest.InitWithCommit(t)
			if _, errOut, code := e2etest.RunEntire(t, dir, nil, "", "enable", "--agent", "gemini"); code != 0 {
				t.Fatalf("enable: %d %s", code, errOut)
			}
			writeOldGeminiInstall(t, dir)
			out, errOut, code := e2etest.RunEntire(t, dir, nil, "", args...)
			if code != 0 {
				t.Fatalf("exit %d %s", code, errOut)
			}
			if len(args) > 1 && !strings.Contains(out, "Hooks for Gemini CLI - Google's AI coding agent (Preview) already installed\n") {
				t.Errorf("stdout %q, want 0 added", out)
			}
			if len(args) == 1 && (!strings.HasPrefix(out, "Already enabled.") || strings.Contains(out, "Updated")) {
				t.Errorf("stdout %q, want already enabled and 0 added", out)
			}
			checkGeminiHooks(t, dir, map[string][]string{"AfterModel": {"./log-model.sh"}})

			before := repoSnapshot(t, dir)
			if _, errOut, code := e2etest.RunEntire(t, dir, nil, "", args...); code != 0 {
				t.Fatalf("second enable: exit %d %s", code, errOut)
			}
			diffSnapshots(t, before, repoSnapshot(t, dir))
		})
	}
}
