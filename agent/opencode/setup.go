package opencode

import "github.com/entirecli/entire/agent"

// EnableSpec lists the plugin.
func (a *Agent) EnableSpec() agent.EnableSpec {
	return agent.EnableSpec{
		Files: []agent.SetupFile{
			{Path: PluginPath, What: "the plugin that forwards OpenCode's events to entire (commit it: teammates' sessions are recorded too)"},
		},
	}
}
