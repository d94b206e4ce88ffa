package hooks

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/claudecode"
	"github.com/entirecli/entire/agent/geminicli"
)

// MCPServerName is the name `entire mcp` is registered under; agents show
// its tools as mcp__entire__<tool> (Claude Code) or mcp_entire_<tool>
// (Gemini CLI).
const MCPServerName = "entire"

// Files the MCP registration edits, relative to the repository root.
const (
	// ClaudeMCPPath is Claude Code's project MCP file.
	ClaudeMCPPath = ".mcp.json"
	// ClaudeLocalSettingsPath holds the approval of project MCP servers
	// (enabledMcpjsonServers).
	ClaudeLocalSettingsPath = ".claude/settings.local.json"
)

// mcpEntry returns the server entry of agentName: {"command":"entire",
// "args":["mcp"]} for Claude Code, with "--agent gemini" for Gemini CLI so
// its note tools use its own namespace.
func mcpEntry(agentName agent.AgentName) json.RawMessage {
	args := []string{"mcp"}
	if agentName == agent.AgentNameGemini {
		args = append(args, "--agent", string(agent.AgentNameGemini))
	}
	a, _ := json.Marshal(args)
	o := &agent.Object{}
	o.Set("command", agent.MustString("entire"))
	o.Set("args", a)
	return o.Compact()
}

// RegisterMCP registers `entire mcp` for agentName in the repository at
// repoRoot, merged into the agent's files like the hooks (foreign members
// kept, nothing rewritten when already in place): for Claude Code
// mcpServers.entire in .mcp.json and "entire" in enabledMcpjsonServers of
// .claude/settings.local.json; for Gemini CLI mcpServers.entire in
// .gemini/settings.json. It reports whether it changed a file. Other agents
// are a no-op. A file that is not a JSON object is an error wrapping
// agent.ErrInvalidSettings.
func RegisterMCP(repoRoot string, agentName agent.AgentName) (bool, error) {
	switch agentName {
	case agent.AgentNameClaudeCode:
		a, err := setServer(filepath.Join(repoRoot, ClaudeMCPPath), mcpEntry(agentName))
		if err != nil {
			return false, err
		}
		b, err := editApproval(filepath.Join(repoRoot, ClaudeLocalSettingsPath), true)
		return a || b, err
	case agent.AgentNameGemini:
		return setServer(filepath.Join(repoRoot, geminicli.SettingsPath), mcpEntry(agentName))
	}
	return false, nil
}

// UnregisterMCP removes what RegisterMCP added for every agent: the
// "entire" server entries whose command is Entire's, and the approval. An
// object or file left empty by the removal is removed; missing files are
// not an error.
func UnregisterMCP(repoRoot string) error {
	for _, p := range []string{ClaudeMCPPath, geminicli.SettingsPath} {
		if err := removeServer(filepath.Join(repoRoot, p)); err != nil {
			return err
		}
	}
	_, err := editApproval(filepath.Join(repoRoot, ClaudeLocalSettingsPath), false)
	return err
}

// MCPRegistered reports whether .mcp.json registers Entire's server.
func MCPRegistered(repoRoot string) bool {
	f, err := agent.ReadSettingsFile(filepath.Join(repoRoot, ClaudeMCPPath), true)
	if err != nil || !f.Exists {
		return false
	}
	servers, err := agent.SubObject(f.Root, "mcpServers", f.Path)
	if err != nil {
		return false
	}
	raw, ok := servers.Get(MCPServerName)
	return ok && isOurServer(raw)
}

func setServer(path string, entry json.RawMessage) (bool, error) {
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil {
		return false, err
	}
	servers, err := agent.SubObject(f.Root, "mcpServers", path)
	if err != nil {
		return false, err
	}
	if old, ok := servers.Get(MCPServerName); ok && sameJSON(old, entry) {
		return false, nil
	}
	servers.Set(MCPServerName, entry)
	f.Root.SetObject("mcpServers", servers)
	if _, err := f.Save(); err != nil {
		return false, fmt.Errorf("register mcp server in %s: %w", path, err)
	}
	return true, nil
}

func removeServer(path string) error {
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil || !f.Exists {
		return err
	}
	if _, ok := f.Root.Get("mcpServers"); !ok {
		return nil
	}
	servers, err := agent.SubObject(f.Root, "mcpServers", path)
	if err != nil {
		return err
	}
	raw, ok := servers.Get(MCPServerName)
	if !ok || !isOurServer(raw) {
		return nil
	}
	servers.Delete(MCPServerName)
	if servers.Len() == 0 {
		f.Root.Delete("mcpServers")
	} else {
		f.Root.SetObject("mcpServers", servers)
	}
	return f.SaveOrRemove()
}

// editApproval adds (add) or removes MCPServerName in the
// enabledMcpjsonServers array of Claude Code's local settings.
func editApproval(path string, add bool) (bool, error) {
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil {
		return false, err
	}
	if !add && !f.Exists {
		return false, nil
	}
	var names []json.RawMessage
	if raw, ok := f.Root.Get("enabledMcpjsonServers"); ok && string(raw) != "null" {
		if json.Unmarshal(raw, &names) != nil {
			return false, fmt.Errorf("%s: %w: enabledMcpjsonServers is not an array", path, agent.ErrInvalidSettings)
		}
	}
	idx := -1
	for i, n := range names {
		var s string
		if json.Unmarshal(n, &s) == nil && s == MCPServerName {
			idx = i
			break
		}
	}
	switch {
	case add && idx >= 0, !add && idx < 0:
		return false, nil
	case add:
		names = append(names, agent.MustString(MCPServerName))
		f.Root.Set("enabledMcpjsonServers", agent.CompactArray(names))
		if _, err := f.Save(); err != nil {
			return false, err
		}
		return true, nil
	}
	names = append(names[:idx], names[idx+1:]...)
	if len(names) == 0 {
		f.Root.Delete("enabledMcpjsonServers")
	} else {
		f.Root.Set("enabledMcpjsonServers", agent.CompactArray(names))
	}
	return true, f.SaveOrRemove()
}

// isOurServer reports whether a server entry runs Entire (`entire ...` or
// the local-dev `go run .../cmd/entire/main.go`).
func isOurServer(raw json.RawMessage) bool {
	var e struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return false
	}
	return e.Command == "entire" || claudecode.IsEntireCommand(e.Command)
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
