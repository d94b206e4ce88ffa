package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/geminicli"
	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
)

// The hook commands as installed in the agents' settings: with the binary
// every Gemini verb answers exit 0 and JSON even to garbage; without it the
// command exits 1 (Gemini CLI: a warning; Claude Code: a non-blocking
// error), never a blocking code.
func TestE2EInstalledHookCommands(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	if err := settings.Save(settings.ProjectPath(dir), settings.Defaults()); err != nil {
		t.Fatal(err)
	}
	if _, err := geminicli.InstallHooksIn(dir, agent.HookInstallOptions{}); err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	b, err := os.ReadFile(filepath.Join(dir, ".gemini", "settings.json"))
	if err != nil || json.Unmarshal(b, &cfg) != nil {
		t.Fatalf("read .gemini/settings.json: %v", err)
	}
	var commands []string
	for _, groups := range cfg.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				commands = append(commands, h.Command)
			}
		}
	}
	if len(commands) != 7 {
		t.Fatalf("installed gemini commands %v", commands)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not available")
	}
	run := func(command, path string) (string, int) {
		cmd := exec.Command(bash, "-c", command) // Gemini CLI runs hooks with bash -c
		cmd.Dir = dir
		cmd.Env = append(gittest.Env(t.TempDir()), "PATH="+path)
		cmd.Stdin = strings.NewReader("garbage, not JSON")
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	withBin := filepath.Dir(e2etest.EntireBin()) + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, c := range commands {
		out, code := run(c, withBin)
		var v map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
			t.Errorf("%q with the binary: exit %d stdout %q", c, code, out)
		}
		if _, code := run(c, t.TempDir()); code != 1 {
			t.Errorf("%q without the binary: exit %d, want 1 (non-blocking)", c, code)
		}
	}
}
