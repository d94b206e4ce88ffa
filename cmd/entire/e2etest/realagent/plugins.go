package realagent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/internal/treecopy"
)

// Client names of the clients entire meets through a plugin (OpenCode,
// Pi) and of Factory droid.
const (
	OpenCode = "opencode"
	Pi       = "pi"
	Droid    = "droid"
)

// pluginVars are the environment of OpenCode, Pi and droid under home:
// XDG directories in the throwaway home, every update check, telemetry
// and download they have switched off, and droid's key variable.
func pluginVars(home string) []string {
	return []string{
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_CLAUDE_CODE=1",
		"OPENCODE_DISABLE_EXTERNAL_SKILLS=1",
		"PI_OFFLINE=1",
		"PI_SKIP_VERSION_CHECK=1",
		"PI_TELEMETRY=0",
		"FAKE_KEY=sk-fake-for-the-scripted-server",
	}
}

// writePluginHomes writes OpenCode's, Pi's and droid's configuration
// under e.Home with the scripted server as their one model, and seeds
// OpenCode's global configuration directory with its plugin package, as
// OpenCode's first start with the network leaves it (entire enable copies
// it from there into the project's .opencode).
func (e *Env) writePluginHomes(t testing.TB, srvURL string) {
	t.Helper()
	opencode := filepath.Join(e.Home, ".config", "opencode")
	writeJSONFile(t, filepath.Join(opencode, "opencode.json"), map[string]any{
		"$schema": "https://opencode.ai/config.json", "autoupdate": false, "share": "disabled",
		"model": "fake/fake-model", "small_model": "fake/fake-model",
		"permission": map[string]any{"edit": "allow", "bash": "allow", "external_directory": "allow", "webfetch": "deny"},
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Fake (127.0.0.1)",
			"options": map[string]any{"baseURL": srvURL + "/v1", "apiKey": "sk-fake-for-the-scripted-server"},
			"models": map[string]any{"fake-model": map[string]any{"name": "Fake Model", "tool_call": true,
				"limit": map[string]any{"context": 128000, "output": 4096}}},
		}},
	})
	if deps := opencodePluginDeps(); deps != "" {
		for _, f := range []string{"node_modules", "package.json", "package-lock.json"} {
			if err := treecopy.Tree(filepath.Join(deps, f), filepath.Join(opencode, f), treecopy.Link); err != nil {
				t.Fatal(err)
			}
		}
	}
	// OpenCode's data directory, as any run of it leaves it (entire
	// restores sessions only where the client keeps its data).
	if err := os.MkdirAll(filepath.Join(e.Home, ".local", "share", "opencode"), 0o755); err != nil {
		t.Fatal(err)
	}
	pi := filepath.Join(e.Home, ".pi", "agent")
	writeJSONFile(t, filepath.Join(pi, "models.json"), map[string]any{"providers": map[string]any{"fake": map[string]any{
		"baseUrl": srvURL + "/v1", "api": "openai-completions", "apiKey": "sk-fake-for-the-scripted-server",
		"compat": map[string]any{"supportsDeveloperRole": false, "supportsReasoningEffort": false},
		"models": []any{map[string]any{"id": "fake-model", "reasoning": false, "contextWindow": 128000, "maxTokens": 4096}},
	}}})
	writeJSONFile(t, filepath.Join(pi, "settings.json"), map[string]any{"defaultProvider": "fake", "defaultModel": "fake-model", "enableInstallTelemetry": false})
	writeJSONFile(t, filepath.Join(e.Home, ".factory", "settings.json"), map[string]any{"customModels": []any{map[string]any{
		"model": "fake-model", "displayName": "Fake", "baseUrl": srvURL + "/v1", "apiKey": "${FAKE_KEY}",
		"provider": "generic-chat-completion-api", "maxOutputTokens": 4096,
	}}})
}

// opencodePluginDeps returns a directory where scripts/install-agents.sh
// installed OpenCode's plugin package, "" when it did not.
func opencodePluginDeps() string {
	m, _ := filepath.Glob(filepath.Join(AgentsDir(), "opencode-*", "plugin-deps", "node_modules", "@opencode-ai", "plugin"))
	if len(m) == 0 {
		return ""
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(m[0])))
}
