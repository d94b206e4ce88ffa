package claudecode

import "github.com/entirecli/entire/agent"

// EnableSpec lists the hook settings (which also hold the metadata deny
// rule and the render references variable), the project's .mcp.json that
// registers the entire MCP server, and the personal
// .claude/settings.local.json that approves it for the user.
func (a *Agent) EnableSpec() agent.EnableSpec {
	return agent.EnableSpec{Files: []agent.SetupFile{
		{Path: SettingsPath, What: "hooks, permissions.deny, env (commit it: teammates' sessions are recorded too)"},
		{Path: MCPPath, What: "the entire MCP server (commit it)"},
		{Path: LocalSettingsPath, What: "approves that server for you", Personal: true},
	}}
}

// EnvSessionID is the variable Claude Code sets to the current session's
// ID for the stdio MCP servers it starts (since 2.1.154).
const EnvSessionID = "CLAUDE_CODE_SESSION_ID"

// SessionIDEnv returns EnvSessionID.
func (a *Agent) SessionIDEnv() string { return EnvSessionID }
