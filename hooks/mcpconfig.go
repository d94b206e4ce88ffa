package hooks

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/claudecode"
	"github.com/entirecli/entire/agent/geminicli"
	"github.com/entirecli/entire/internal/jsonedit"
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
// repoRoot, inserted into the agent's files at the text level like the
// hooks (foreign members kept, nothing rewritten when already in place) and
// recorded in log: for Claude Code mcpServers.entire in .mcp.json and
// "entire" in enabledMcpjsonServers of .claude/settings.local.json; for
// Gemini CLI mcpServers.entire in .gemini/settings.json. It reports whether
// it changed a file. Other agents are a no-op. A file that is not a JSON
// object is an error wrapping agent.ErrInvalidSettings.
func RegisterMCP(repoRoot string, agentName agent.AgentName, log *agent.InstallLog) (bool, error) {
	switch agentName {
	case agent.AgentNameClaudeCode:
		a, err := setServer(repoRoot, ClaudeMCPPath, mcpEntry(agentName), log)
		if err != nil {
			return false, err
		}
		b, err := editApproval(repoRoot, true, log)
		return a || b, err
	case agent.AgentNameGemini:
		return setServer(repoRoot, geminicli.SettingsPath, mcpEntry(agentName), log)
	}
	return false, nil
}

// UnregisterMCP takes out what RegisterMCP recorded in log, byte for byte;
// a file RegisterMCP created is removed when nothing else is left in it.
// With a nil log (an older install) it removes the "entire" server entries
// whose command is Entire's and the approval, and the objects and files
// that leaves empty. Missing files are not an error.
func UnregisterMCP(repoRoot string, log *agent.InstallLog) error {
	for _, p := range []string{ClaudeMCPPath, geminicli.SettingsPath} {
		if err := removeServer(repoRoot, p, log); err != nil {
			return err
		}
	}
	_, err := editApproval(repoRoot, false, log)
	return err
}

// MCPRegistered reports whether .mcp.json registers Entire's server.
func MCPRegistered(repoRoot string) bool {
	f, err := agent.ReadSettingsFile(filepath.Join(repoRoot, ClaudeMCPPath), true)
	if err != nil || !f.Exists {
		return false
	}
	raw, ok := f.Doc.Get("mcpServers", MCPServerName)
	return ok && isOurServer(raw)
}

func setServer(repoRoot, rel string, entry json.RawMessage, log *agent.InstallLog) (bool, error) {
	path := filepath.Join(repoRoot, rel)
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil {
		return false, err
	}
	f.Added = log.Record(rel)
	if err := f.Ensure('{', "mcpServers"); err != nil {
		return false, err
	}
	switch old, ok := f.Doc.Get("mcpServers", MCPServerName); {
	case !ok:
		if err := f.Insert([]string{"mcpServers"}, MCPServerName, entry, true); err != nil {
			return false, err
		}
	case sameJSON(old, entry):
		return false, nil
	default:
		if err := f.Doc.Replace(jsonedit.Path{"mcpServers", MCPServerName}, entry); err != nil {
			return false, err
		}
		if isOurServer(old) {
			f.Added.Member([]string{"mcpServers", MCPServerName}, entry)
		}
	}
	if _, err := f.Save(); err != nil {
		return false, fmt.Errorf("register mcp server in %s: %w", path, err)
	}
	return true, nil
}

func removeServer(repoRoot, rel string, log *agent.InstallLog) error {
	path := filepath.Join(repoRoot, rel)
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil || !f.Exists {
		return err
	}
	rec := log.Lookup(rel)
	if rec == nil {
		raw, ok := f.Doc.Get("mcpServers", MCPServerName)
		if !ok || !isOurServer(raw) {
			return nil
		}
		rec = &jsonedit.Record{}
		rec.Member([]string{"mcpServers"}, nil)
		rec.Member([]string{"mcpServers", MCPServerName}, raw)
	}
	if !f.Doc.Undo(rec) {
		return nil
	}
	return f.SaveOrRemove(log, rel)
}

// editApproval adds (add) or removes MCPServerName in the
// enabledMcpjsonServers array of Claude Code's local settings.
func editApproval(repoRoot string, add bool, log *agent.InstallLog) (bool, error) {
	rel := ClaudeLocalSettingsPath
	path := filepath.Join(repoRoot, rel)
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil {
		return false, err
	}
	if !add && !f.Exists {
		return false, nil
	}
	if k := f.Doc.Kind("enabledMcpjsonServers"); k != 0 && k != '[' && k != 'v' {
		return false, fmt.Errorf("%s: %w: enabledMcpjsonServers is not an array", path, agent.ErrInvalidSettings)
	}
	raw, _ := f.Doc.Get("enabledMcpjsonServers")
	var names []string
	_ = json.Unmarshal(raw, &names)
	has := slices.Contains(names, MCPServerName)
	if add {
		if has {
			return false, nil
		}
		f.Added = log.Record(rel)
		if err := f.Ensure('[', "enabledMcpjsonServers"); err != nil {
			return false, err
		}
		if err := f.Append([]string{"enabledMcpjsonServers"}, agent.MustString(MCPServerName)); err != nil {
			return false, err
		}
		_, err := f.Save()
		return err == nil, err
	}
	rec := log.Lookup(rel)
	if rec == nil {
		if !has {
			return false, nil
		}
		rec = &jsonedit.Record{}
		rec.Member([]string{"enabledMcpjsonServers"}, nil)
		rec.Element([]string{"enabledMcpjsonServers"}, agent.MustString(MCPServerName))
	}
	if !f.Doc.Undo(rec) {
		return false, nil
	}
	return true, f.SaveOrRemove(log, rel)
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
