package geminicli

import "github.com/entirecli/entire/agent"

// EnableSpec marks Gemini CLI's support as a preview and lists its one
// settings file, which holds the hooks and the entire MCP server.
func (a *Agent) EnableSpec() agent.EnableSpec {
	return agent.EnableSpec{Preview: true, Files: []agent.SetupFile{
		{Path: SettingsPath, What: "hooks, the entire MCP server (commit it)"},
	}}
}
