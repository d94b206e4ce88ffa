//go:build realagent

package realagent

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/agent"
	ocagent "github.com/entirecli/entire/agent/opencode"
	piagent "github.com/entirecli/entire/agent/pi"
	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/cmd/entire/e2etest/realagent"
)

// bunOf returns the Bun runtime OpenCode ships (its native binary runs
// as Bun with BUN_BE_BUN=1), "" when OpenCode is not installed.
func bunOf(inst realagent.Installed) string {
	m, _ := filepath.Glob(filepath.Join(realagent.AgentsDir(), "opencode-"+inst.Version, "node_modules", "opencode-linux-*", "bin", "opencode"))
	if len(m) == 0 {
		return ""
	}
	return m[0]
}

// loadPlugin runs script with OpenCode's Bun in dir and returns what it
// printed.
func loadPlugin(t *testing.T, bun, dir, script string, path string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "load.ts"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bun, filepath.Join(dir, "load.ts"))
	cmd.Dir = dir
	cmd.Env = []string{"BUN_BE_BUN=1", "PATH=" + path, "HOME=" + dir}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("load the plugin: %v\n%s", err, out)
	}
	return string(out)
}

// The plugin and the extension as enable writes them load, register the
// hooks entire needs, and cost nothing when entire is not on PATH: an
// agent skips a plugin that does not load without a word, so this is
// checked with OpenCode's own runtime (Bun), not left to the scenarios.
func TestRealAgentPluginsLoad(t *testing.T) {
	t.Parallel()
	inst := realagent.Versions(realagent.OpenCode)[0]
	realagent.Binary(t, inst)
	bun := bunOf(inst)
	if bun == "" {
		t.Fatalf("no Bun runtime in OpenCode %s", inst.Version)
	}
	dir := t.TempDir()
	for _, p := range []agent.PluginFile{ocagent.Plugin(), piagent.Extension()} {
		if _, err := p.Install(dir, agent.HookInstallOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	withEntire := e2etest.BinDir() + string(os.PathListSeparator) + "/usr/bin:/bin"
	ocPath := filepath.Join(dir, filepath.FromSlash(ocagent.PluginPath))
	piPath := filepath.Join(dir, filepath.FromSlash(piagent.ExtensionPath))

	// OpenCode: the hooks in a session; nothing in its other commands.
	ocScript := `const m = await import(` + quoteJS(ocPath) + `);
const hooks = await m.EntirePlugin({ directory: ` + quoteJS(dir) + `, client: {} });
console.log(Object.keys(m).join(","), "|", Object.keys(hooks).sort().join(","));
process.argv = ["bun", "opencode", "export", "ses_x"];
console.log(Object.keys(await m.EntirePlugin({ directory: "/", client: {} })).length);
`
	out := loadPlugin(t, bun, dir, ocScript, withEntire)
	if want := "EntirePlugin | chat.message,dispose,event,tool.execute.after,tool.execute.before\n0\n"; out != want {
		t.Errorf("OpenCode plugin: %q, want %q", out, want)
	}
	out = loadPlugin(t, bun, dir, ocScript, "/usr/bin:/bin")
	if !strings.Contains(out, "EntirePlugin | \n") || strings.Count(out, "entire: entire is not on PATH") != 1 {
		t.Errorf("OpenCode plugin without entire registers hooks or says nothing:\n%s", out)
	}

	// Pi: its events; without entire, a handler returns at once.
	piScript := `const m = await import(` + quoteJS(piPath) + `);
const handlers = new Map();
m.default({ on: (event, fn) => handlers.set(event, fn) });
console.log([...handlers.keys()].sort().join(","));
const ctx = { cwd: "/", sessionManager: { getSessionId: () => "s1", getSessionFile: () => "/nonexistent.jsonl", getEntries: () => [] } };
const start = performance.now();
for (let i = 0; i < 100; i++) await handlers.get("tool_call")({ toolName: "write", toolCallId: "c", input: {} }, ctx);
console.log("per-event-ms", ((performance.now() - start) / 100).toFixed(3));
`
	out = loadPlugin(t, bun, dir, piScript, "/usr/bin:/bin")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || lines[0] != "agent_end,input,session_compact,session_shutdown,session_start,tool_call,tool_result" {
		t.Fatalf("Pi extension registers %q", out)
	}
	var perEvent float64
	for _, l := range lines {
		if v, ok := strings.CutPrefix(l, "per-event-ms "); ok {
			d, err := time.ParseDuration(v + "ms")
			if err != nil {
				t.Fatal(err)
			}
			perEvent = float64(d) / float64(time.Millisecond)
		}
	}
	if perEvent > 100 || strings.Count(out, "entire: entire is not on PATH") != 1 {
		t.Errorf("Pi extension without entire: %.3f ms per event (want at most 100), said:\n%s", perEvent, out)
	}
	t.Logf("Pi extension without entire: %.3f ms per event", perEvent)
}

// quoteJS quotes s as a JavaScript string.
func quoteJS(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// A real turn of OpenCode and of Pi with entire's plugin installed but
// entire not on PATH: the turn runs, its files are written, one line says
// the session is not recorded, no hook runs.
func TestRealAgentPluginWithoutEntire(t *testing.T) {
	t.Parallel()
	for _, f := range families {
		if f.name != realagent.OpenCode && f.name != realagent.Pi {
			continue
		}
		inst := realagent.Versions(f.name)[0]
		t.Run(inst.Label(), func(t *testing.T) {
			t.Parallel()
			c := f.make(t, inst)
			r := newLiveRepo(t, c)
			env := *r.env
			env.Vars = append([]string{}, r.env.Vars...)
			for i, v := range env.Vars {
				if strings.HasPrefix(v, "PATH=") {
					env.Vars[i] = "PATH=/usr/bin:/bin"
				}
			}
			r.srv.SetScript("ne", realagent.Script{step(usage(0), c.write(filepath.Join(r.dir, "ne.txt"), "ne\n")), {Text: "Wrote ne.txt.", Usage: usage(1)}})
			res := realagent.Run(t, &env, r.dir, c.binary(), c.promptArgs("SCRIPT:ne a turn without entire")...)
			if res.ExitCode != 0 {
				t.Fatalf("%s exit %d without entire:\n%s", c.name(), res.ExitCode, tailString(res.Stderr))
			}
			if b, _ := os.ReadFile(filepath.Join(r.dir, "ne.txt")); string(b) != "ne\n" {
				t.Errorf("the turn did not run: ne.txt %q", b)
			}
			if n := strings.Count(res.Stderr, "entire: entire is not on PATH"); n != 1 {
				t.Errorf("%d lines say entire is missing (want 1):\n%s", n, tailString(res.Stderr))
			}
			if log := e2etest.LogText(r.dir); strings.Contains(log, `"msg":"hook completed"`) {
				t.Errorf("a hook ran without entire on PATH:\n%s", log)
			}
			t.Logf("%s turn without entire: %s", c.name(), res.Elapsed.Round(time.Millisecond))
		})
	}
}
