package claudecode

import (
	"strings"

	"github.com/entirecli/entire/agent"
)

// Files the MCP registration edits, relative to the repository root.
const (
	// MCPPath is Claude Code's project MCP file.
	MCPPath = ".mcp.json"
	// LocalSettingsPath is the personal settings file that approves
	// project MCP servers (enabledMcpjsonServers).
	LocalSettingsPath = ".claude/settings.local.json"
)

var _ agent.MCPHost = (*Agent)(nil)

// MCPRegistration registers `entire mcp` in .mcp.json, approved in
// .claude/settings.local.json.
func (a *Agent) MCPRegistration() agent.MCPRegistration {
	return agent.MCPRegistration{ServersFile: MCPPath, Args: []string{"mcp"}, ApprovalFile: LocalSettingsPath}
}

// IsEntireMCPCommand recognises Entire's commands as for hooks
// (IsEntireCommand).
func (a *Agent) IsEntireMCPCommand(command string) bool { return IsEntireCommand(command) }

// MCPToolPrefixes returns mcp__<server>__.
func (a *Agent) MCPToolPrefixes(server string) []string {
	return []string{"mcp__" + server + "__"}
}

// isMCPTool reports whether toolName is a tool of any MCP server.
func isMCPTool(toolName string) bool { return strings.HasPrefix(toolName, "mcp__") }
