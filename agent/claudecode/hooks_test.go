package claudecode_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/claudecode"
)

func writeSettings(t *testing.T, root, content string) string {
	t.Helper()
	path := filepath.Join(root, claudecode.SettingsPath)
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestInstallCountsAndVerbs(t *testing.T) {
	t.Parallel()
	a := claudecode.New()
	want := []string{"session-start", "session-end", "stop", "user-prompt-submit", "pre-task", "post-task", "post-todo", "post-tool", "subagent-start", "subagent-stop"}
	if got := a.GetHookNames(); !reflect.DeepEqual(got, want) {
		t.Errorf("GetHookNames = %q", got)
	}
	for _, verb := range []string{} {
		if _, ok := a.HookTypeForVerb(verb); !ok {
			t.Errorf("future verb %q not parsable", verb)
		}
	}
	if _, ok := a.HookTypeForVerb("nope"); ok {
		t.Errorf("unknown verb resolved")
	}
	root := t.TempDir()
	n, err := claudecode.InstallHooksIn(root, agent.HookInstallOptions{})
	if err != nil || n != 10 {
		t.Fatalf("install = %d, %v; want 10", n, err)
	}
	data, _ := os.ReadFile(filepath.Join(root, claudecode.SettingsPath))
	for _, s := range []string{`"matcher": "Agent|Task"`, `"matcher": "TodoWrite|TaskCreate|TaskUpdate"`, `"Read(./.entire/metadata/**)"`, `"SubagentStart"`, `"SubagentStop"`, `"ENTIRE_RENDERABLE_REFS": "1"`} {
		if !strings.Contains(string(data), s) {
			t.Errorf("settings lack %s", s)
		}
	}
	if !strings.Contains(string(data), "claude-code post-tool") || !strings.Contains(string(data), "claude-code subagent-stop") {
		t.Errorf("post-tool or subagent hooks missing:\n%s", data)
	}
	if n, err := claudecode.InstallHooksIn(root, agent.HookInstallOptions{Force: true}); err != nil || n != 10 {
		t.Errorf("force install = %d, %v; want 10", n, err)
	}
}

// TestUpgradeOldInstall: an install made by the original CLI (matcher Task,
// TodoWrite) is converted to the current matchers without duplicates.
func TestUpgradeOldInstall(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	old := `{
  "hooks": {
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "entire hooks claude-code stop"}, {"type": "command", "command": "mine"}]}],
    "PreToolUse": [{"matcher": "Task", "hooks": [{"type": "command", "command": "entire hooks claude-code pre-task"}]}],
    "PostToolUse": [
      {"matcher": "Task", "hooks": [{"type": "command", "command": "entire hooks claude-code post-task"}]},
      {"matcher": "TodoWrite", "hooks": [{"type": "command", "command": "entire hooks claude-code post-todo"}]}
    ]
  },
  "permissions": {"deny": ["Read(./.entire/metadata/**)"]}
}`
	path := writeSettings(t, root, old)
	if ok, _ := claudecode.HooksInstalledIn(root); !ok {
		t.Errorf("old install not detected")
	}
	n, err := claudecode.InstallHooksIn(root, agent.HookInstallOptions{})
	if err != nil || n != 9 {
		t.Fatalf("upgrade added %d, %v; want 9 (all but stop)", n, err)
	}
	data, _ := os.ReadFile(path)
	s := string(data)
	if strings.Contains(s, `"matcher": "Task"`) || strings.Contains(s, `"matcher": "TodoWrite"`) {
		t.Errorf("old matchers left:\n%s", s)
	}
	if strings.Count(s, "claude-code pre-task") != 1 || strings.Count(s, "claude-code stop") != 1 || !strings.Contains(s, `"mine"`) {
		t.Errorf("duplicates or lost foreign hook:\n%s", s)
	}
	if strings.Count(s, "Read(./.entire/metadata/**)") != 1 {
		t.Errorf("deny rule duplicated")
	}
	if err := claudecode.UninstallHooksIn(root, nil); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	if strings.Contains(string(data), "entire ") || !strings.Contains(string(data), `"mine"`) || strings.Contains(string(data), "permissions") {
		t.Errorf("after uninstall:\n%s", data)
	}
}

// TestRenderRefsEnv: install sets env.ENTIRE_RENDERABLE_REFS next to the
// user's own variables; uninstall removes only ours, and leaves a value the
// user changed.
func TestRenderRefsEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, before       string
		wantAfterUninstall []string
		notAfterUninstall  []string
	}{
		{"no env", `{}`, nil, []string{"env", "ENTIRE_RENDERABLE_REFS"}},
		{"user env kept", `{"env": {"FOO": "bar"}}`, []string{`"FOO": "bar"`}, []string{"ENTIRE_RENDERABLE_REFS"}},
		{"user value kept", `{"env": {"ENTIRE_RENDERABLE_REFS": "0"}}`, []string{`"ENTIRE_RENDERABLE_REFS": "0"`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			path := writeSettings(t, root, tt.before)
			if _, err := claudecode.InstallHooksIn(root, agent.HookInstallOptions{}); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			if !strings.Contains(string(data), `"ENTIRE_RENDERABLE_REFS"`) {
				t.Errorf("after install:\n%s", data)
			}
			if strings.Count(string(data), "ENTIRE_RENDERABLE_REFS") != 1 {
				t.Errorf("variable duplicated:\n%s", data)
			}
			if err := claudecode.UninstallHooksIn(root, nil); err != nil {
				t.Fatal(err)
			}
			data, _ = os.ReadFile(path)
			for _, w := range tt.wantAfterUninstall {
				if !strings.Contains(string(data), w) {
					t.Errorf("after uninstall lacks %s:\n%s", w, data)
				}
			}
			for _, w := range tt.notAfterUninstall {
				if strings.Contains(string(data), w) {
					t.Errorf("after uninstall has %s:\n%s", w, data)
				}
			}
		})
	}
}

func TestHooksInstalledLegacy(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"entire hooks claudecode stop", "entire rewind claude-hook --stop",
		"go run ${CLAUDE_PROJECT_DIR}/cmd/entire/main.go hooks claude-code stop"} {
		root := t.TempDir()
		writeSettings(t, root, `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"`+cmd+`"}]}]}}`)
		if ok, err := claudecode.HooksInstalledIn(root); !ok || err != nil {
			t.Errorf("%q: installed = %v, %v", cmd, ok, err)
		}
	}
	root := t.TempDir()
	if ok, err := claudecode.HooksInstalledIn(root); ok || err != nil {
		t.Errorf("missing file: %v, %v", ok, err)
	}
	writeSettings(t, root, `{"hooks":null}`)
	if n, err := claudecode.InstallHooksIn(root, agent.HookInstallOptions{}); err != nil || n != 10 {
		t.Errorf("null hooks: %d, %v", n, err)
	}
}

func TestSessionDir(t *testing.T) {
	t.Parallel()
	if got := claudecode.SanitizePath("/Users/me/my_repo.v2"); got != "-Users-me-my-repo-v2" {
		t.Errorf("SanitizePath = %q", got)
	}
	a := newWithEnv(nil, "/home/u")
	if d, err := a.GetSessionDir("/work/r"); err != nil || d != "/home/u/.claude/projects/-work-r" {
		t.Errorf("GetSessionDir = %q, %v", d, err)
	}
	c := newWithEnv(map[string]string{claudecode.EnvConfigDir: "/cfg"}, "/home/u")
	if d, _ := c.GetSessionDir("/work/r"); d != "/cfg/projects/-work-r" {
		t.Errorf("CLAUDE_CONFIG_DIR not honoured: %q", d)
	}
	if got := a.FormatResumeCommand("abc"); got != "claude -r abc" {
		t.Errorf("FormatResumeCommand = %q", got)
	}
}

func TestHookData(t *testing.T) {
	t.Parallel()
	in, err := claudecode.ParseTaskInput([]byte(`{"description":"d","prompt":"p","subagent_type":"Explore","run_in_background":true}`))
	if err != nil || in != (claudecode.TaskInput{Description: "d", Prompt: "p", SubagentType: "Explore", RunInBackground: true}) {
		t.Errorf("ParseTaskInput = %+v, %v", in, err)
	}
	r, err := claudecode.ParseTaskResponse([]byte(`{"status":"completed","agentId":"a1","content":[]}`))
	if err != nil || r.AgentID != "a1" || r.Status != "completed" {
		t.Errorf("ParseTaskResponse = %+v, %v", r, err)
	}
	if r, err := claudecode.ParseTaskResponse([]byte(`"Error: x"`)); err != nil || r.AgentID != "" {
		t.Errorf("string response = %+v, %v", r, err)
	}
	if !claudecode.IsTaskTool("Agent") || !claudecode.IsTaskTool("Task") || claudecode.IsTaskTool("TaskCreate") || claudecode.IsTaskTool("TaskOutput") {
		t.Errorf("IsTaskTool wrong")
	}
}
