package opencode

import "github.com/entirecli/entire/agent"

// EnableSpec lists the plugin, and says what OpenCode does with the
// .opencode directory the plugin is in (see seedDeps).
func (a *Agent) EnableSpec() agent.EnableSpec {
	return agent.EnableSpec{
		Files: []agent.SetupFile{
			{Path: PluginPath, What: "the plugin that forwards OpenCode's events to entire (commit it: teammates' sessions are recorded too)"},
		},
		Note: "OpenCode installs its plugin package into .opencode/node_modules when it starts without one, and waits for it " +
			"(seconds online; about 70 s offline). enable copies it from ~/.config/opencode when OpenCode has installed it there; " +
			"otherwise run `npm install --prefix .opencode @opencode-ai/plugin` once.",
		NotRunYet: "start OpenCode in this repository; if it has run here since enable, it did not load the plugin " +
			"(`opencode --print-logs` shows why).",
	}
}
