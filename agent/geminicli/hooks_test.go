package geminicli_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/geminicli"
)

func TestGeminiInstall(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	path := filepath.Join(root, geminicli.SettingsPath)
	// An install by the original CLI: commands without "|| exit 1",
	// tools.enableHooks, plus legacy hooks.enabled/disabled keys.
	old := `{
  "tools": {
    "enableHooks": true
  },
  "hooks": {
    "enabled": true,
    "disabled": [
      "x"
    ],
    "SessionStart": [
      {
        "hooks": [
          {
            "name": "entire-session-start",
            "type": "command",
            "command": "entire hooks gemini session-start"
          }
        ]
      }
    ]
  }
}`
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	n, err := geminicli.InstallHooksIn(root, agent.HookInstallOptions{})
	if err != nil || n != 7 {
		t.Fatalf("install = %d, %v; want 7", n, err)
	}
	data, _ := os.ReadFile(path)
	s := string(data)
	if strings.Count(s, "|| exit 1") != 7 || strings.Contains(s, `gemini session-start"`) {
		t.Errorf("commands not upgraded:\n%s", s)
	}
	if !strings.Contains(s, "\"hooksConfig\": {\n    \"enabled\": true\n  }") || !strings.Contains(s, `"enableHooks": true`) || !strings.Contains(s, `"disabled": [`) {
		t.Errorf("settings:\n%s", s)
	}
	if strings.HasSuffix(s, "\n") {
		t.Errorf("trailing newline added to a file without one")
	}
	if n, _ := geminicli.InstallHooksIn(root, agent.HookInstallOptions{}); n != 0 {
		t.Errorf("second install added %d", n)
	}
	if ok, _ := geminicli.HooksInstalledIn(root); !ok {
		t.Errorf("not installed")
	}
	if err := geminicli.UninstallHooksIn(root, nil); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	if strings.Contains(string(data), "entire") || strings.Contains(string(data), "hooksConfig") || !strings.Contains(string(data), `"enabled": true`) {
		t.Errorf("after uninstall:\n%s", data)
	}
	a := geminicli.New()
	if len(a.GetHookNames()) != 6 || a.FormatResumeCommand("x") != "gemini --resume x" {
		t.Errorf("hook names %q", a.GetHookNames())
	}
}

// AfterAgent's prompt_response is the turn's final answer.
func TestParseAfterAgentPromptResponse(t *testing.T) {
	t.Parallel()
	a := geminicli.New()
	for payload, want := range map[string]string{
		`{"session_id":"g","prompt":"p","prompt_response":"Done."}`: "Done.",
		`{"session_id":"g","prompt_response":null}`:                 "",
		`{"session_id":"g"}`: "",
	} {
		in, err := a.ParseHookInput(agent.HookStop, strings.NewReader(payload))
		if err != nil {
			t.Errorf("%s: %v", payload, err)
		} else if in.LastAssistantMessage != want {
			t.Errorf("%s: LastAssistantMessage %q, want %q", payload, in.LastAssistantMessage, want)
		}
	}
	if _, err := a.ParseHookInput(agent.HookStop, strings.NewReader(`{"session_id":"g","prompt_response":42}`)); !errors.Is(err, agent.ErrMalformedInput) {
		t.Errorf("prompt_response 42: err = %v, want ErrMalformedInput", err)
	}
}
