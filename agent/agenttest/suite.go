package agenttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
)

// Run runs the whole suite against the agent described by fx. Subtests call
// t.Parallel; the agent must not depend on process-global state.
func Run(t *testing.T, fx Fixture) {
	t.Run("Identity", func(t *testing.T) { t.Parallel(); testIdentity(t, fx) })
	t.Run("Hooks", func(t *testing.T) { t.Parallel(); testHooks(t, fx) })
	t.Run("HookInput", func(t *testing.T) { t.Parallel(); testHookInput(t, fx) })
	t.Run("Session", func(t *testing.T) { t.Parallel(); testSession(t, fx) })
	t.Run("Chunking", func(t *testing.T) { t.Parallel(); testChunking(t, fx) })
	t.Run("Scan", func(t *testing.T) { t.Parallel(); testScan(t, fx) })
	t.Run("Sniff", func(t *testing.T) { t.Parallel(); testSniff(t, fx) })
	t.Run("Capabilities", func(t *testing.T) { t.Parallel(); testCapabilities(t, fx) })
	t.Run("HookTable", func(t *testing.T) { t.Parallel(); testHookTable(t, fx) })
	t.Run("Protected", func(t *testing.T) { t.Parallel(); testProtected(t, fx) })
	t.Run("SessionStore", func(t *testing.T) { t.Parallel(); testSessionStore(t, fx) })
	t.Run("Format", func(t *testing.T) { t.Parallel(); testFormat(t, fx) })
	t.Run("Recognize", func(t *testing.T) { t.Parallel(); testRecognize(t, fx) })
	t.Run("LastEntryTime", func(t *testing.T) { t.Parallel(); testLastEntryTime(t, fx) })
	t.Run("Enable", func(t *testing.T) { t.Parallel(); testEnable(t, fx) })
	t.Run("SessionIDEnv", func(t *testing.T) { t.Parallel(); testSessionIDEnv(t, fx) })
}

func newAgent(fx Fixture, t *testing.T) agent.Agent {
	return fx.NewWithEnv(nil, t.TempDir())
}

func testIdentity(t *testing.T, fx Fixture) {
	a := newAgent(fx, t)
	got, err := agent.Get(a.Name())
	if err != nil {
		t.Fatalf("agent %q not registered: %v", a.Name(), err)
	}
	if got.Type() != a.Type() {
		t.Errorf("registry type %q, want %q", got.Type(), a.Type())
	}
	byType, err := agent.GetByAgentType(a.Type())
	if err != nil || byType.Name() != a.Name() {
		t.Errorf("GetByAgentType(%q) = %v, %v", a.Type(), byType, err)
	}
	if a.Description() == "" || (!fx.External && a.GetHookConfigPath() != fx.SettingsPath) {
		t.Errorf("description %q, hook config path %q (want %q)", a.Description(), a.GetHookConfigPath(), fx.SettingsPath)
	}
	if id := "0f1e2d3c-aaaa"; a.ExtractAgentSessionID(a.TransformSessionID(id)) != id {
		t.Errorf("session id transforms do not round trip")
	}
	if cmd := a.FormatResumeCommand("abc-123"); !strings.HasSuffix(cmd, " abc-123") {
		t.Errorf("FormatResumeCommand = %q", cmd)
	}
}

func installer(t *testing.T, fx Fixture) (agent.HookInstaller, agent.HookHandler) {
	a := newAgent(fx, t)
	inst, ok := a.(agent.HookInstaller)
	if !ok {
		t.Skip("agent does not install hooks")
	}
	hh, _ := a.(agent.HookHandler)
	return inst, hh
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testHooks(t *testing.T, fx Fixture) {
	if fx.Plugin {
		testPluginHooks(t, fx)
		return
	}
	t.Run("Fresh", func(t *testing.T) {
		t.Parallel()
		inst, hh := installer(t, fx)
		root := t.TempDir()
		path := filepath.Join(root, fx.SettingsPath)
		n, err := inst.InstallHooksIn(root, agent.HookInstallOptions{})
		if err != nil || n == 0 {
			t.Fatalf("install = %d, %v", n, err)
		}
		first := readFile(t, path)
		if !json.Valid(first) {
			t.Fatalf("installed settings are not valid JSON:\n%s", first)
		}
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
			t.Errorf("settings mode %v, want 0600", st.Mode().Perm())
		}
		for _, verb := range hh.GetHookNames() {
			if !bytes.Contains(first, []byte(" "+verb)) {
				t.Errorf("verb %q not installed", verb)
			}
		}
		if ok, err := inst.HooksInstalledIn(root); !ok || err != nil {
			t.Errorf("HooksInstalledIn = %v, %v", ok, err)
		}
		n, err = inst.InstallHooksIn(root, agent.HookInstallOptions{})
		if err != nil || n != 0 {
			t.Errorf("second install = %d, %v; want 0", n, err)
		}
		if !bytes.Equal(readFile(t, path), first) {
			t.Errorf("second install changed the file")
		}
		nf, err := inst.InstallHooksIn(root, agent.HookInstallOptions{Force: true})
		if err != nil || nf == 0 {
			t.Errorf("force install = %d, %v", nf, err)
		}
		if err := inst.UninstallHooksIn(root, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("settings file that was ours alone still exists: %v", err)
		}
		if ok, _ := inst.HooksInstalledIn(root); ok {
			t.Errorf("still installed after uninstall")
		}
	})
	if fx.External {
		// The program owns its file: no local-dev form (never sent),
		// and what it makes of a file it cannot read is its own.
		return
	}
	t.Run("LocalDev", func(t *testing.T) {
		t.Parallel()
		inst, _ := installer(t, fx)
		root := t.TempDir()
		if _, err := inst.InstallHooksIn(root, agent.HookInstallOptions{LocalDev: true}); err != nil {
			t.Fatal(err)
		}
		data := readFile(t, filepath.Join(root, fx.SettingsPath))
		if !bytes.Contains(data, []byte("go run ")) {
			t.Errorf("local-dev commands missing:\n%s", data)
		}
		// Switching back to production replaces the local-dev entries.
		if _, err := inst.InstallHooksIn(root, agent.HookInstallOptions{}); err != nil {
			t.Fatal(err)
		}
		if data := readFile(t, filepath.Join(root, fx.SettingsPath)); bytes.Contains(data, []byte("go run ")) {
			t.Errorf("local-dev commands left after production install:\n%s", data)
		}
	})
	for name, content := range fx.ForeignSettings {
		t.Run("Foreign/"+name, func(t *testing.T) {
			t.Parallel()
			inst, _ := installer(t, fx)
			root := t.TempDir()
			path := filepath.Join(root, fx.SettingsPath)
			if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			n, err := inst.InstallHooksIn(root, agent.HookInstallOptions{})
			if err != nil || n == 0 {
				t.Fatalf("install = %d, %v", n, err)
			}
			installed := readFile(t, path)
			assertKeepsForeign(t, []byte(content), installed, fx.MergedKeys)
			if n, _ := inst.InstallHooksIn(root, agent.HookInstallOptions{}); n != 0 || !bytes.Equal(readFile(t, path), installed) {
				t.Errorf("second install changed the file (added %d)", n)
			}
			if _, err := inst.InstallHooksIn(root, agent.HookInstallOptions{Force: true}); err != nil {
				t.Fatal(err)
			}
			assertKeepsForeign(t, []byte(content), readFile(t, path), fx.MergedKeys)
			if err := inst.UninstallHooksIn(root, nil); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, path); !bytes.Equal(got, []byte(content)) {
				t.Errorf("uninstall did not restore the file byte for byte:\n--- got\n%s\n--- want\n%s", got, content)
			}
		})
	}
	t.Run("InvalidJSON", func(t *testing.T) {
		t.Parallel()
		inst, _ := installer(t, fx)
		root := t.TempDir()
		path := filepath.Join(root, fx.SettingsPath)
		_ = os.MkdirAll(filepath.Dir(path), 0o750)
		bad := []byte("{\"hooks\": {,}\n")
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := inst.InstallHooksIn(root, agent.HookInstallOptions{}); !errors.Is(err, agent.ErrInvalidSettings) {
			t.Errorf("install on invalid JSON: err = %v, want ErrInvalidSettings", err)
		}
		if err := inst.UninstallHooksIn(root, nil); !errors.Is(err, agent.ErrInvalidSettings) {
			t.Errorf("uninstall on invalid JSON: err = %v, want ErrInvalidSettings", err)
		}
		if !bytes.Equal(readFile(t, path), bad) {
			t.Errorf("invalid settings file was modified")
		}
		if err := os.WriteFile(path, []byte(`{"hooks": []}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := inst.InstallHooksIn(root, agent.HookInstallOptions{}); !errors.Is(err, agent.ErrInvalidSettings) {
			t.Errorf("install with non-object hooks: err = %v, want ErrInvalidSettings", err)
		}
	})
}

// testPluginHooks checks an agent whose hooks are a plugin file:
// install writes it with every verb, once; local-dev runs `go run`;
// uninstall removes it; a file at its path that is not Entire's is an
// invalid setting, left byte for byte.
func testPluginHooks(t *testing.T, fx Fixture) {
	t.Run("Fresh", func(t *testing.T) {
		t.Parallel()
		inst, hh := installer(t, fx)
		root := t.TempDir()
		path := filepath.Join(root, fx.SettingsPath)
		n, err := inst.InstallHooksIn(root, agent.HookInstallOptions{})
		if err != nil || n == 0 {
			t.Fatalf("install = %d, %v", n, err)
		}
		first := readFile(t, path)
		for _, verb := range hh.GetHookNames() {
			if !bytes.Contains(first, []byte(`"`+verb+`"`)) {
				t.Errorf("verb %q not in the plugin", verb)
			}
		}
		if ok, err := inst.HooksInstalledIn(root); !ok || err != nil {
			t.Errorf("HooksInstalledIn = %v, %v", ok, err)
		}
		if n, err := inst.InstallHooksIn(root, agent.HookInstallOptions{}); err != nil || n != 0 || !bytes.Equal(readFile(t, path), first) {
			t.Errorf("second install = %d, %v, or changed the file", n, err)
		}
		if _, err := inst.InstallHooksIn(root, agent.HookInstallOptions{LocalDev: true}); err != nil {
			t.Fatal(err)
		}
		if local := readFile(t, path); !bytes.Contains(local, []byte(`"go","run"`)) {
			t.Errorf("local-dev plugin does not run go run:\n%s", local)
		}
		if err := inst.UninstallHooksIn(root, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("plugin still exists: %v", err)
		}
		if ok, _ := inst.HooksInstalledIn(root); ok {
			t.Errorf("still installed after uninstall")
		}
	})
	t.Run("Foreign", func(t *testing.T) {
		t.Parallel()
		inst, _ := installer(t, fx)
		root := t.TempDir()
		path := filepath.Join(root, fx.SettingsPath)
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			t.Fatal(err)
		}
		mine := []byte("export default function () {}\n")
		if err := os.WriteFile(path, mine, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := inst.InstallHooksIn(root, agent.HookInstallOptions{Force: true}); !errors.Is(err, agent.ErrInvalidSettings) {
			t.Errorf("install over the user's file: %v, want ErrInvalidSettings", err)
		}
		if err := inst.UninstallHooksIn(root, nil); err != nil {
			t.Errorf("uninstall with the user's file there: %v", err)
		}
		if ok, _ := inst.HooksInstalledIn(root); ok || !bytes.Equal(readFile(t, path), mine) {
			t.Errorf("the user's file was taken for Entire's or changed")
		}
	})
}

// assertKeepsForeign checks that every top-level key of before is still in
// after, and every foreign hook command is still present. The objects named
// in merged may gain members but must keep their own.
func assertKeepsForeign(t *testing.T, before, after []byte, merged []string) {
	t.Helper()
	var b, a map[string]json.RawMessage
	if err := json.Unmarshal(before, &b); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(after, &a); err != nil {
		t.Fatalf("settings after install are invalid: %v", err)
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			t.Errorf("foreign key %q lost", k)
		}
		if slices.Contains(merged, k) {
			var bm, am map[string]json.RawMessage
			if json.Unmarshal(v, &bm) != nil || json.Unmarshal(a[k], &am) != nil {
				t.Errorf("merged key %q is not an object: %s -> %s", k, v, a[k])
				continue
			}
			for mk, mv := range bm {
				if !jsonEqual(mv, am[mk]) {
					t.Errorf("foreign member %s.%s changed: %s -> %s", k, mk, mv, am[mk])
				}
			}
			continue
		}
		if k != "hooks" && k != "permissions" && k != "hooksConfig" && !jsonEqual(v, a[k]) {
			t.Errorf("foreign key %q changed: %s -> %s", k, v, a[k])
		}
	}
	for _, cmd := range commands(before) {
		if !bytes.Contains(after, []byte(cmd)) {
			t.Errorf("foreign hook command %q lost", cmd)
		}
	}
}

func commands(data []byte) []string {
	var v struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	_ = json.Unmarshal(data, &v)
	var out []string
	for _, groups := range v.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				out = append(out, h.Command)
			}
		}
	}
	return out
}

func jsonEqual(a, b []byte) bool {
	var x, y interface{}
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
