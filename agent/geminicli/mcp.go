package geminicli

import "github.com/entirecli/entire/agent"

var _ agent.MCPHost = (*Agent)(nil)

// MCPRegistration registers `entire mcp --agent gemini` in
// .gemini/settings.json, so that the server's note tools use Gemini CLI's
// own namespace.
func (a *Agent) MCPRegistration() agent.MCPRegistration {
	return agent.MCPRegistration{ServersFile: SettingsPath, Args: []string{"mcp", "--agent", string(a.Name())}}
}

// IsEntireMCPCommand recognises Entire's commands as for hooks
// (IsEntireCommand).
func (a *Agent) IsEntireMCPCommand(command string) bool { return IsEntireCommand(command) }

// MCPToolPrefixes returns mcp_<server>_ and, used before Gemini CLI 0.34,
// <server>__.
func (a *Agent) MCPToolPrefixes(server string) []string {
	return []string{"mcp_" + server + "_", server + "__"}
}
