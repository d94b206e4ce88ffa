package hooks

import "github.com/entirecli/entire/agent"

// RegisterMCP registers `entire mcp` for the agent registered as agentName
// in the repository at repoRoot (agent.RegisterMCP: the files the agent's
// agent.MCPRegistration names, edited at the text level and recorded in
// log). It reports whether it changed a file. An agent that starts no
// project MCP servers, or is not registered, is a no-op. A file that is not a JSON object is an
// error wrapping agent.ErrInvalidSettings.
func RegisterMCP(repoRoot string, agentName agent.AgentName, log *agent.InstallLog) (bool, error) {
	a, err := agent.Get(agentName)
	if err != nil {
		return false, nil
	}
	return agent.RegisterMCP(repoRoot, a, log)
}

// UnregisterMCP takes the registration of `entire mcp` out of every
// registered agent's files (agent.UnregisterMCP): what RegisterMCP recorded
// in log byte for byte, or with a nil log (an older install) what is
// recognised as Entire's. Missing files are not an error.
func UnregisterMCP(repoRoot string, log *agent.InstallLog) error {
	return agent.UnregisterMCP(repoRoot, log)
}

// MCPRegistered reports whether an agent's MCP servers file in the
// repository at repoRoot registers Entire's server.
func MCPRegistered(repoRoot string) bool { return agent.MCPRegistered(repoRoot) }
