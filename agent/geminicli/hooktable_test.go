package geminicli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/geminicli"
)

// installedRows are the handlers install writes: event, matcher, name and
// command, in order. The commands are those of every install so far: Gemini
// CLI trusts a project hook by name and command and asks again when either
// changes.
var installedRows = [][4]string{
	{"SessionStart", "", "entire-session-start", "entire hooks gemini session-start || exit 1"},
	{"SessionEnd", "exit", "entire-session-end-exit", "entire hooks gemini session-end || exit 1"},
	{"SessionEnd", "logout", "entire-session-end-logout", "entire hooks gemini session-end || exit 1"},
	{"BeforeAgent", "", "entire-before-agent", "entire hooks gemini before-agent || exit 1"},
	{"AfterAgent", "", "entire-after-agent", "entire hooks gemini after-agent || exit 1"},
	{"BeforeTool", "*", "entire-before-tool", "entire hooks gemini before-tool || exit 1"},
	{"AfterTool", "*", "entire-after-tool", "entire hooks gemini after-tool || exit 1"},
}

// retiredEvents are the events of SPEC 2.2 that are no longer installed.
var retiredEvents = []string{"BeforeModel", "AfterModel", "BeforeToolSelection", "PreCompress", "Notification"}

func TestHookTable(t *testing.T) {
	t.Parallel()
	var got [][4]string
	for _, s := range geminicli.HookTable() {
		if !s.NoOp {
			got = append(got, [4]string{s.Event, s.Matcher, s.Name, geminicli.HookCommand(s.Verb, false)})
		}
	}
	if !reflect.DeepEqual(got, installedRows) {
		t.Errorf("installed rows\n%q\nwant\n%q", got, installedRows)
	}
	a := geminicli.New()
	wantNames := []string{"session-start", "session-end", "before-agent", "after-agent", "before-tool", "after-tool"}
	if got := a.GetHookNames(); !reflect.DeepEqual(got, wantNames) {
		t.Errorf("GetHookNames = %q", got)
	}
	wantNoOp := []string{"before-model", "after-model", "before-tool-selection", "pre-compress", "notification"}
	if got := a.NoOpHookVerbs(); !reflect.DeepEqual(got, wantNoOp) {
		t.Errorf("NoOpHookVerbs = %q", got)
	}
	for _, verb := range wantNoOp {
		if !agent.IsNoOpHookVerb(a, verb) {
			t.Errorf("IsNoOpHookVerb(%q) = false", verb)
		}
	}
	for _, verb := range append(wantNames, "nope", "") {
		if agent.IsNoOpHookVerb(a, verb) {
			t.Errorf("IsNoOpHookVerb(%q) = true", verb)
		}
	}
	for _, verb := range append(wantNames, wantNoOp...) {
		if _, ok := a.HookTypeForVerb(verb); !ok {
			t.Errorf("HookTypeForVerb(%q) unknown", verb)
		}
	}
	wantTypes := []agent.HookType{agent.HookSessionStart, agent.HookSessionEnd, agent.HookUserPromptSubmit,
		agent.HookStop, agent.HookPreToolUse, agent.HookPostToolUse}
	if got := a.GetSupportedHooks(); !reflect.DeepEqual(got, wantTypes) {
		t.Errorf("GetSupportedHooks = %q", got)
	}
}

// oldInstall returns the settings file of SPEC 2.2's install: every row of
// HookTable, the no-op ones included, one group per row.
func oldInstall(t *testing.T) []byte {
	t.Helper()
	hooks := &agent.Object{}
	for _, s := range geminicli.HookTable() {
		h := &agent.Object{}
		h.Set("name", agent.MustString(s.Name))
		h.Set("type", agent.MustString("command"))
		h.Set("command", agent.MustString(geminicli.HookCommand(s.Verb, false)))
		g := &agent.Object{}
		if s.Matcher != "" {
			g.Set("matcher", agent.MustString(s.Matcher))
		}
		g.Set("hooks", agent.CompactArray([]json.RawMessage{h.Compact()}))
		var groups []json.RawMessage
		if raw, ok := hooks.Get(s.Event); ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				t.Fatal(err)
			}
		}
		hooks.Set(s.Event, agent.CompactArray(append(groups, g.Compact())))
	}
	cfg := &agent.Object{}
	cfg.Set("enabled", []byte("true"))
	root := &agent.Object{}
	root.SetObject("hooksConfig", cfg)
	root.SetObject("hooks", hooks)
	return root.Indent("  ")
}

const (
	foreignHandler = `{"name":"my-log","type":"command","command":"/usr/local/bin/log-model"}`
	foreignGroup   = `{"matcher":"write_file","hooks":[{"name":"my-check","type":"command","command":"./check.sh","timeout":5000}]}`
)

// mixForeign adds foreign content to an old install: a handler in the
// BeforeModel group beside ours, a group of its own in AfterTool and an
// unknown key. With retired false it returns what install must make of
// that: the same file without Entire's handlers of the retired events.
func mixForeign(t *testing.T, data []byte, retired bool) []byte {
	t.Helper()
	root, err := agent.ParseObject(data)
	if err != nil {
		t.Fatal(err)
	}
	hooks, err := agent.SubObject(root, "hooks", "settings")
	if err != nil {
		t.Fatal(err)
	}
	model := &agent.Object{}
	model.Set("hooks", agent.CompactArray([]json.RawMessage{json.RawMessage(foreignHandler)}))
	if retired {
		raw, _ := hooks.Get("BeforeModel")
		var groups []struct {
			Hooks []json.RawMessage `json:"hooks"`
		}
		if err := json.Unmarshal(raw, &groups); err != nil || len(groups) != 1 {
			t.Fatalf("BeforeModel of the old install: %s", raw)
		}
		model.Set("hooks", agent.CompactArray(append(groups[0].Hooks, json.RawMessage(foreignHandler))))
	} else {
		for _, ev := range retiredEvents {
			if ev != "BeforeModel" { // left with the foreign handler, in place
				hooks.Delete(ev)
			}
		}
	}
	hooks.Set("BeforeModel", agent.CompactArray([]json.RawMessage{model.Compact()}))
	var after []json.RawMessage
	raw, _ := hooks.Get("AfterTool")
	if err := json.Unmarshal(raw, &after); err != nil {
		t.Fatal(err)
	}
	hooks.Set("AfterTool", agent.CompactArray(append(after, json.RawMessage(foreignGroup))))
	root.SetObject("hooks", hooks)
	root.Set("theme", agent.MustString("Dracula"))
	return root.Indent("  ")
}

// handlers returns the handler objects of every event, as written.
func handlers(t *testing.T, data []byte) map[string][]string {
	t.Helper()
	var f struct {
		Hooks map[string][]struct {
			Hooks []json.RawMessage `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("settings: %v\n%s", err, data)
	}
	out := map[string][]string{}
	for ev, groups := range f.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				out[ev] = append(out[ev], string(h))
			}
		}
	}
	return out
}

// TestInstallRewritesOldInstall: an install of SPEC 2.2's 12 handlers,
// current in every kept command (so SPEC's SessionStart shortcut would
// skip it), is rewritten to the 7 handlers; kept handlers and foreign
// content stay byte for byte.
func TestInstallRewritesOldInstall(t *testing.T) {
	t.Parallel()
	sources := map[string]func(t *testing.T) []byte{
		"real enable": func(t *testing.T) []byte {
			b, err := os.ReadFile(agenttest.HookSettingsFile(t, "gemini-cli-0.61.0"))
			if err != nil {
				t.Fatal(err)
			}
			return b
		},
		"generated": oldInstall,
	}
	for name, source := range sources {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			old := source(t)
			if n := strings.Count(string(old), `"command": "entire hooks gemini `); n != 12 {
				t.Fatalf("not an old install: %d Entire handlers", n)
			}
			t.Run("alone", func(t *testing.T) {
				t.Parallel()
				root := writeGeminiSettings(t, old)
				got := installOnce(t, root, 0)
				want := handlers(t, old)
				for _, ev := range retiredEvents {
					delete(want, ev)
				}
				if h := handlers(t, got); !reflect.DeepEqual(h, want) {
					t.Errorf("handlers after install\n%q\nwant\n%q", h, want)
				}
				// Everything but the retired events is kept as written.
				var before, after map[string]json.RawMessage
				if json.Unmarshal(old, &before) != nil || json.Unmarshal(got, &after) != nil {
					t.Fatal("not JSON")
				}
				for k, v := range before {
					if k != "hooks" && !bytes.Equal(after[k], v) {
						t.Errorf("%s changed:\n%s\nwas\n%s", k, after[k], v)
					}
				}
				assertCommands(t, got)
				assertUninstalled(t, root, false)
			})
			t.Run("with foreign hooks", func(t *testing.T) {
				t.Parallel()
				root := writeGeminiSettings(t, mixForeign(t, old, true))
				got := installOnce(t, root, 0)
				if want := mixForeign(t, old, false); !bytes.Equal(got, want) {
					t.Errorf("after install\n%s\nwant\n%s", got, want)
				}
				assertCommands(t, got)
				assertUninstalled(t, root, true)
			})
			t.Run("uninstall", func(t *testing.T) {
				t.Parallel()
				root := writeGeminiSettings(t, mixForeign(t, old, true))
				assertUninstalled(t, root, true)
			})
			t.Run("force", func(t *testing.T) {
				t.Parallel()
				root := writeGeminiSettings(t, old)
				n, err := geminicli.InstallHooksIn(root, agent.HookInstallOptions{Force: true})
				if err != nil || n != 7 {
					t.Errorf("force install = %d, %v; want 7", n, err)
				}
				assertCommands(t, readGeminiSettings(t, root))
			})
		})
	}
}

// TestInstallFreshIsFinal: a fresh install is already the final form; a
// second install changes nothing.
func TestInstallFreshIsFinal(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if n, err := geminicli.InstallHooksIn(root, agent.HookInstallOptions{}); err != nil || n != 7 {
		t.Fatalf("install = %d, %v; want 7", n, err)
	}
	data := installOnce(t, root, 0)
	assertCommands(t, data)
	for _, ev := range retiredEvents {
		if bytes.Contains(data, []byte(`"`+ev+`"`)) {
			t.Errorf("%s installed:\n%s", ev, data)
		}
	}
}

func writeGeminiSettings(t *testing.T, data []byte) string {
	t.Helper()
	root := t.TempDir()
	path := filepath.Join(root, geminicli.SettingsPath)
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return root
}

func readGeminiSettings(t *testing.T, root string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, geminicli.SettingsPath))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// installOnce installs, expects added handlers, and checks that a second
// install adds none and leaves the file byte-identical. It returns the
// file.
func installOnce(t *testing.T, root string, added int) []byte {
	t.Helper()
	n, err := geminicli.InstallHooksIn(root, agent.HookInstallOptions{})
	if err != nil || n != added {
		t.Fatalf("install = %d, %v; want %d", n, err, added)
	}
	first := readGeminiSettings(t, root)
	n, err = geminicli.InstallHooksIn(root, agent.HookInstallOptions{})
	if err != nil || n != 0 {
		t.Errorf("second install = %d, %v; want 0", n, err)
	}
	if again := readGeminiSettings(t, root); !bytes.Equal(again, first) {
		t.Errorf("second install changed the file:\n%s\nwas\n%s", again, first)
	}
	return first
}

// assertCommands checks that the Entire handlers in data are exactly
// installedRows.
func assertCommands(t *testing.T, data []byte) {
	t.Helper()
	var f struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Name    string `json:"name"`
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	got := map[[4]string]int{}
	for ev, groups := range f.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if geminicli.IsEntireCommand(h.Command) {
					got[[4]string{ev, g.Matcher, h.Name, h.Command}]++
				}
			}
		}
	}
	want := map[[4]string]int{}
	for _, r := range installedRows {
		want[r] = 1
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Entire handlers\n%v\nwant\n%v", got, want)
	}
}

// assertUninstalled uninstalls and checks that no Entire handler is left,
// in any of the 11 events, and that foreign hooks are. A file that held
// only Entire's content may be gone.
func assertUninstalled(t *testing.T, root string, foreign bool) {
	t.Helper()
	if err := geminicli.UninstallHooksIn(root, nil); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, geminicli.SettingsPath))
	if errors.Is(err, fs.ErrNotExist) && !foreign {
		return // nothing but Entire's left: removed
	}
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("entire hooks")) {
		t.Errorf("Entire handlers left by uninstall:\n%s", data)
	}
	if ok, _ := geminicli.HooksInstalledIn(root); ok {
		t.Errorf("still installed after uninstall")
	}
	if foreign {
		h := handlers(t, data)
		var model bytes.Buffer
		if len(h["BeforeModel"]) == 1 {
			_ = json.Compact(&model, []byte(h["BeforeModel"][0]))
		}
		if model.String() != foreignHandler || len(h["AfterTool"]) != 1 ||
			!bytes.Contains(data, []byte(`"theme": "Dracula"`)) {
			t.Errorf("foreign content lost by uninstall:\n%s", data)
		}
	}
}
