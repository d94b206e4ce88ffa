package commands

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/droid"
	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// e2etest.Snapshot maps every file under dir (except .git/objects, refs and logs,
// which commits change) to its bytes and mode.
func treeSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		for _, skip := range []string{".git/objects", ".git/refs", ".git/logs", ".git/index", ".git/ORIG_HEAD", ".git/COMMIT_EDITMSG", ".git/packed-refs", ".git/entire-sessions"} {
			if rel == skip || strings.HasPrefix(rel, skip+"/") {
				if info.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		if info.IsDir() {
			out[rel+"/"] = info.Mode().String()
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = info.Mode().String() + "\n" + string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffTrees(t *testing.T, before, after map[string]string) {
	t.Helper()
	var keys []string
	for k := range before {
		keys = append(keys, k)
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		b, inB := before[k]
		a, inA := after[k]
		switch {
		case !inA:
			t.Errorf("%s is gone", k)
		case !inB:
			t.Errorf("%s is left behind:\n%s", k, a)
		case a != b:
			t.Errorf("%s differs:\n got %q\nwant %q", k, a, b)
		}
	}
}

func enableUninstall(t *testing.T, dir string, agentName string, between func()) {
	t.Helper()
	for range 2 { // enable is idempotent
		if _, errOut, code := e2etest.RunEntire(t, dir, nil, "", "enable", "--agent", agentName); code != 0 {
			t.Fatalf("enable exit %d: %s", code, errOut)
		}
	}
	if between != nil {
		between()
	}
	if _, errOut, code := e2etest.RunEntire(t, dir, nil, "", "disable", "--uninstall", "--force"); code != 0 {
		t.Fatalf("uninstall exit %d: %s", code, errOut)
	}
}

// TestUninstallRemovesWhatEnableCreated: without settings files before,
// enable then uninstall leaves the repository as it was: the files and the
// directories enable created are gone.
func TestUninstallRemovesWhatEnableCreated(t *testing.T) {
	t.Parallel()
	for _, name := range agent.List() {
		ag := string(name)
		t.Run(ag, func(t *testing.T) {
			t.Parallel()
			dir := gittest.InitWithCommit(t)
			before := treeSnapshot(t, dir)
			enableUninstall(t, dir, ag, nil)
			diffTrees(t, before, treeSnapshot(t, dir))
		})
	}
}

// unusualSettings are pre-existing settings files in layouts a formatter
// would change: tabs, four spaces, compact, no final newline, CRLF, keys in
// a particular order, user hooks present.
var unusualSettings = map[string]map[string]string{
	"claude-code": {
		"tabs":       "{\n\t\"permissions\": {\n\t\t\"allow\": [\"Bash(ls)\"]\n\t},\n\t\"model\": \"opus\",\n\t\"hooks\": {\n\t\t\"Stop\": [\n\t\t\t{\"matcher\": \"\", \"hooks\": [{\"type\": \"command\", \"command\": \"echo mine\"}]}\n\t\t]\n\t}\n}\n",
		"compact":    `{"zeta":1,"env":{"A":"b"},"alpha":[1,2]}`,
		"crlf4":      "{\r\n    \"hooks\": {\r\n        \"PostToolUse\": []\r\n    },\r\n    \"env\": {}\r\n}",
		"empty":      "{}\n",
		".mcp+local": "{\n  \"model\": \"x\"\n}\n",
	},
	"gemini": {
		"tabs":    "{\n\t\"ui\": {\"theme\": \"Dracula\"},\n\t\"hooksConfig\": {\n\t\t\"notifications\": false\n\t},\n\t\"hooks\": {\n\t\t\"BeforeTool\": [{\"matcher\": \"*\", \"hooks\": [{\"name\": \"mine\", \"type\": \"command\", \"command\": \"echo mine\"}]}]\n\t}\n}",
		"compact": `{"mcpServers":{"other":{"command":"x"}},"general":{"vimMode":true}}`,
		"crlf4":   "{\r\n    \"model\": {\r\n        \"name\": \"gemini-2.5-pro\"\r\n    }\r\n}\r\n",
	},
	"codex": {
		"tabs":    "{\n\t\"hooks\": {\n\t\t\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\", \"timeout\": 30}]}]\n\t}\n}\n",
		"compact": `{"hooks":{}}`,
		"+config": "{\n  \"hooks\": {}\n}\n",
	},
	"droid": {
		"tabs":    "{\n\t\"customModels\": [{\"model\": \"m\", \"provider\": \"generic-chat-completion-api\"}],\n\t\"hooks\": {\n\t\t\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}]\n\t}\n}",
		"compact": `{"hooks":{"PreToolUse":[]},"model":"custom:m"}`,
	},
}

// extraSettings are other files of an agent's setup that exist before
// enable, by agent and case name.
var extraSettings = map[string]map[string]map[string]string{
	"codex": {"+config": {".codex/config.toml": "model = \"gpt-5.5\"\r\n[mcp_servers.docs]\r\ncommand = \"docs\""}},
}

var settingsPathOf = map[string]string{"claude-code": ".claude/settings.json", "gemini": ".gemini/settings.json", "codex": ".codex/hooks.json", "droid": droid.SettingsPath}

func writeFileT(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUninstallRestoresUnusualSettingsByteForByte: pre-existing settings
// in unusual layouts come back byte-identical, as do pre-existing git hooks
// that enable chained to and the .mcp.json, settings.local.json and
// info/exclude files it edited.
func TestUninstallRestoresUnusualSettingsByteForByte(t *testing.T) {
	t.Parallel()
	for ag, files := range unusualSettings {
		for name, content := range files {
			t.Run(ag+"/"+name, func(t *testing.T) {
				t.Parallel()
				dir := gittest.InitWithCommit(t)
				writeFileT(t, filepath.Join(dir, settingsPathOf[ag]), content)
				for rel, content := range extraSettings[ag][name] {
					writeFileT(t, filepath.Join(dir, rel), content)
				}
				if name == ".mcp+local" {
					writeFileT(t, filepath.Join(dir, ".mcp.json"), "{\n    \"mcpServers\": {\n        \"db\": {\"command\": \"pg\"}\n    }\n}")
					writeFileT(t, filepath.Join(dir, ".claude/settings.local.json"), "{\"enabledMcpjsonServers\": [\"db\"]}\n")
				}
				// A user's git hooks, which enable moves aside and chains.
				hook := filepath.Join(dir, ".git", "hooks", "pre-push")
				writeFileT(t, hook, "#!/bin/sh\necho user pre-push\n")
				if err := os.Chmod(hook, 0o750); err != nil {
					t.Fatal(err)
				}
				writeFileT(t, filepath.Join(dir, ".git", "hooks", "commit-msg"), "#!/bin/sh\nexit 0")
				before := treeSnapshot(t, dir)
				enableUninstall(t, dir, ag, func() {
					data, err := os.ReadFile(filepath.Join(dir, settingsPathOf[ag]))
					if err != nil || !json.Valid(data) {
						t.Fatalf("settings after enable: %v\n%s", err, data)
					}
				})
				diffTrees(t, before, treeSnapshot(t, dir))
			})
		}
	}
}

// TestUninstallKeepsUserEditsAfterEnable: what the user adds to the
// settings after enable (another hook, another key, an entry in a list
// enable added to) survives; only Entire's bytes are taken out.
func TestUninstallKeepsUserEditsAfterEnable(t *testing.T) {
	t.Parallel()
	edits := map[string]func(s string) string{
		"claude-code": func(s string) string {
			s = strings.Replace(s, "\"hooks\": {", "\"hooks\": {\n    \"Notification\": [{\"matcher\": \"\", \"hooks\": [{\"type\": \"command\", \"command\": \"notify-send hi\"}]}],", 1)
			s = strings.Replace(s, "\"Read(./.entire/metadata/**)\"", "\"Read(./.entire/metadata/**)\",\n      \"Read(./secrets/**)\"", 1)
			return strings.Replace(s, "{", "{\n  \"model\": \"sonnet\",", 1)
		},
		"gemini": func(s string) string {
			s = strings.Replace(s, "\"hooks\": {", "\"hooks\": {\n    \"AfterModel\": [{\"hooks\": [{\"name\": \"mine\", \"type\": \"command\", \"command\": \"echo mine\"}]}],", 1)
			return strings.Replace(s, "{", "{\n  \"ui\": {\"theme\": \"Dracula\"},", 1)
		},
	}
	for ag, edit := range edits {
		t.Run(ag, func(t *testing.T) {
			t.Parallel()
			dir := gittest.InitWithCommit(t)
			path := filepath.Join(dir, settingsPathOf[ag])
			enableUninstall(t, dir, ag, func() {
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				edited := edit(string(data))
				if !json.Valid([]byte(edited)) {
					t.Fatalf("edited settings are not JSON:\n%s", edited)
				}
				writeFileT(t, path, edited)
			})
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("settings with user edits removed: %v", err)
			}
			var v map[string]any
			if err := json.Unmarshal(data, &v); err != nil {
				t.Fatalf("settings after uninstall are not JSON: %v\n%s", err, data)
			}
			if bytes.Contains(data, []byte("entire")) || bytes.Contains(data, []byte("hooksConfig")) || bytes.Contains(data, []byte("ENTIRE_")) {
				t.Errorf("Entire's entries left:\n%s", data)
			}
			for _, want := range []string{"mine", "notify-send hi", "sonnet", "Dracula", "Read(./secrets/**)"} {
				if strings.Contains(edit("{\"hooks\": {\"Read(./.entire/metadata/**)\""), want) && !bytes.Contains(data, []byte(want)) {
					t.Errorf("user edit %q lost:\n%s", want, data)
				}
			}
		})
	}
}

// TestUninstallKeepsAnExistingEntireDir: a .entire/ the project already had
// (a teammate's committed settings and .gitignore, in their own layout)
// comes back byte for byte; only what enable added to it is taken out,
// including the working files hooks wrote there.
func TestUninstallKeepsAnExistingEntireDir(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	writeFileT(t, filepath.Join(dir, ".entire", "settings.json"), "{\n\t\"log_level\": \"debug\",\n\t\"strategy\": \"manual-commit\"\n}")
	writeFileT(t, filepath.Join(dir, ".entire", ".gitignore"), "# team\nlogs/")
	writeFileT(t, filepath.Join(dir, ".entire", "README"), "ours\n")
	before := treeSnapshot(t, dir)
	enableUninstall(t, dir, "claude-code", func() {
		got, err := os.ReadFile(filepath.Join(dir, ".entire", "settings.json"))
		if err != nil || !bytes.Contains(got, []byte("\t\"enabled\": true")) {
			t.Fatalf("settings after enable, in the file's own layout: %v\n%s", err, got)
		}
		writeFileT(t, filepath.Join(dir, ".entire", "logs", "entire.log"), "a hook's log\n")
	})
	diffTrees(t, before, treeSnapshot(t, dir))
}

// TestOpenCodeEnableSeedsPluginPackage: enable copies OpenCode's plugin
// package into the .opencode it creates (OpenCode would otherwise install
// it at start, 70 s offline) and keeps it out of git; what OpenCode then
// generates there goes with the uninstall, and the repository is as
// before.
func TestOpenCodeEnableSeedsPluginPackage(t *testing.T) {
	t.Parallel()
	deps := t.TempDir()
	writeFileT(t, filepath.Join(deps, "node_modules", "@opencode-ai", "plugin", "package.json"), `{"name":"@opencode-ai/plugin","version":"1.18.33"}`)
	writeFileT(t, filepath.Join(deps, "package.json"), `{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}`)
	writeFileT(t, filepath.Join(deps, "package-lock.json"), `{"packages":{"":{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}}}`)
	dir := gittest.InitWithCommit(t)
	before := treeSnapshot(t, dir)
	env := []string{"ENTIRE_OPENCODE_PLUGIN_DEPS=" + deps}
	out, errOut, code := e2etest.RunEntire(t, dir, env, "", "enable", "--agent", "opencode")
	if code != 0 {
		t.Fatalf("enable exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "@opencode-ai/plugin") {
		t.Errorf("enable does not say what OpenCode installs into .opencode:\n%s", out)
	}
	seeded, err := os.Stat(filepath.Join(dir, ".opencode", "node_modules", "@opencode-ai", "plugin", "package.json"))
	if err != nil {
		t.Fatalf("the plugin package was not seeded: %v", err)
	}
	// A hard link would be named in every answer of the hooks' watcher.
	if n := seeded.Sys().(*syscall.Stat_t).Nlink; n != 1 {
		t.Errorf("a seeded file has %d links, want a copy of its own", n)
	}
	if status := gittest.Git(t, dir, "status", "--porcelain", "--untracked-files=all"); strings.Contains(status, "node_modules") || !strings.Contains(status, ".opencode/plugins/entire.ts") {
		t.Errorf("git status after enable:\n%s", status)
	}
	// OpenCode's own start adds a lock file of its runtime.
	writeFileT(t, filepath.Join(dir, ".opencode", "bun.lock"), "{}\n")
	if _, errOut, code := e2etest.RunEntire(t, dir, env, "", "disable", "--uninstall", "--force"); code != 0 {
		t.Fatalf("uninstall exit %d: %s", code, errOut)
	}
	diffTrees(t, before, treeSnapshot(t, dir))
	if _, err := os.Stat(filepath.Join(deps, "node_modules", "@opencode-ai", "plugin", "package.json")); err != nil {
		t.Errorf("uninstall touched the source of the seed: %v", err)
	}
}
