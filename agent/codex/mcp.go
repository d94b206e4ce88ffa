package codex

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/atomicfile"
)

// ConfigPath is the project configuration file Codex reads (for a trusted
// project), relative to the repository root; Entire's MCP server is
// registered there.
const ConfigPath = ".codex/config.toml"

// mcpTable is the TOML table header of Entire's server.
const mcpTable = "[mcp_servers." + agent.MCPServerName + "]"

// mcpBlock is the text the registration appends to the config file.
const mcpBlock = mcpTable + "\ncommand = \"entire\"\nargs = [\"mcp\", \"--agent\", \"codex\"]\n"

// MCPRegistration registers `entire mcp --agent codex` in
// .codex/config.toml.
func (a *Agent) MCPRegistration() agent.MCPRegistration {
	return agent.MCPRegistration{ServersFile: ConfigPath, Args: []string{"mcp", "--agent", string(Name)}}
}

// IsEntireMCPCommand recognises Entire's commands as for hooks.
func (a *Agent) IsEntireMCPCommand(command string) bool { return IsEntireCommand(command) }

// MCPToolPrefixes returns mcp__<server>__, Codex's name for an MCP tool
// given to the model.
func (a *Agent) MCPToolPrefixes(server string) []string {
	return []string{"mcp__" + server + "__"}
}

// hasTable reports whether config has a line that is the table header.
func hasTable(config []byte, header string) bool {
	for _, line := range strings.Split(string(config), "\n") {
		if strings.TrimSpace(line) == header {
			return true
		}
	}
	return false
}

// RegisterMCPIn appends Entire's [mcp_servers.entire] table to
// .codex/config.toml, unless the file has that table already (the user's,
// or an earlier enable's), at the text level: nothing in the file is
// rewritten, and the appended text (with the newline the file may have
// lacked) is recorded in log.
func (a *Agent) RegisterMCPIn(repoRoot string, log *agent.InstallLog) (bool, error) {
	path := filepath.Join(repoRoot, ConfigPath)
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("register mcp server in %s: %w", path, err)
	}
	if hasTable(old, mcpTable) {
		return false, nil
	}
	add := mcpBlock
	if len(old) > 0 {
		add = "\n" + mcpBlock
		if !bytes.HasSuffix(old, []byte("\n")) {
			add = "\n" + add
		}
	}
	if err := atomicfile.Write(path, append(old, add...), 0o644); err != nil {
		return false, fmt.Errorf("register mcp server in %s: %w", path, err)
	}
	if old == nil {
		log.AddCreated(ConfigPath)
	} else {
		log.AddAppended(ConfigPath, add)
	}
	return true, nil
}

// UnregisterMCPIn takes out what RegisterMCPIn added: the text it
// appended, when the file still ends with it, or the file it created, when
// nothing but its table is in it. With a nil log it takes out Entire's
// table where it is exactly as RegisterMCPIn writes it.
func (a *Agent) UnregisterMCPIn(repoRoot string, log *agent.InstallLog) error {
	path := filepath.Join(repoRoot, ConfigPath)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("unregister mcp server in %s: %w", path, err)
	}
	var out []byte
	switch {
	case log != nil && log.WasCreated(ConfigPath) && bytes.Contains(data, []byte(mcpBlock)):
		// Enable's file: its table goes, what was added since stays; a
		// file left empty goes too.
		i := bytes.Index(data, []byte(mcpBlock))
		out = append(append([]byte(nil), data[:i]...), data[i+len(mcpBlock):]...)
		if len(bytes.TrimSpace(out)) == 0 {
			if err := os.Remove(path); err != nil {
				return fmt.Errorf("unregister mcp server: %w", err)
			}
			return nil
		}
	case log != nil && log.Appended[ConfigPath] != "" && bytes.HasSuffix(data, []byte(log.Appended[ConfigPath])):
		out = data[:len(data)-len(log.Appended[ConfigPath])]
	case log == nil:
		i := bytes.Index(data, []byte(mcpBlock))
		if i < 0 {
			return nil
		}
		start := i
		if start > 0 && data[start-1] == '\n' {
			start-- // the blank line the register put before the table
		}
		out = append(append([]byte(nil), data[:start]...), data[i+len(mcpBlock):]...)
	default:
		return nil
	}
	if err := atomicfile.Write(path, out, 0o644); err != nil {
		return fmt.Errorf("unregister mcp server in %s: %w", path, err)
	}
	return nil
}

// MCPRegisteredIn reports whether .codex/config.toml has Entire's table.
func (a *Agent) MCPRegisteredIn(repoRoot string) bool {
	data, err := os.ReadFile(filepath.Join(repoRoot, ConfigPath))
	return err == nil && hasTable(data, mcpTable)
}
