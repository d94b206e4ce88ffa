package agent

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entirecli/entire/internal/jsonedit"
)

// MCPServerName is the name `entire mcp` is registered under in every
// agent's files; agents name its tools with a prefix built from it
// (MCPHost.MCPToolPrefixes).
const MCPServerName = "entire"

// mcpCommand is the command of the server entry RegisterMCP writes.
const mcpCommand = "entire"

// MCPRegistration says where and how an agent finds project MCP servers.
type MCPRegistration struct {
	// ServersFile is the JSON settings file, relative to the repository
	// root (slash-separated), whose top-level "mcpServers" object lists
	// the servers by name.
	ServersFile string
	// Args are the arguments of `entire` that start the server for this
	// agent (["mcp", ...]).
	Args []string
	// ApprovalFile, when not empty, is the personal settings file,
	// relative to the repository root, whose "enabledMcpjsonServers"
	// array must name a project server before the agent starts it.
	ApprovalFile string
}

// MCPHost is implemented by agents that start the MCP servers a project file
// lists: `entire enable` registers Entire's server there (RegisterMCP).
type MCPHost interface {
	// MCPRegistration says where and how Entire's server is registered.
	MCPRegistration() MCPRegistration
	// IsEntireMCPCommand reports whether a server entry's command (besides
	// a plain "entire") runs Entire, installed or as the local-dev build.
	IsEntireMCPCommand(command string) bool
	// MCPToolPrefixes returns every prefix the agent, in any version, puts
	// before the tool names of the MCP server called server.
	MCPToolPrefixes(server string) []string
}

// MCPConfigurer is implemented by MCPHosts whose servers file is not a
// JSON object with a "mcpServers" member (Codex's TOML config): they
// register Entire's server in it themselves, at the text level, recording
// what they add in the install log so that the unregister takes out
// exactly that. RegisterMCP, UnregisterMCP and MCPRegistered call them
// instead of editing the file as JSON.
type MCPConfigurer interface {
	// RegisterMCPIn registers the server in the repository at repoRoot
	// and reports whether it changed a file.
	RegisterMCPIn(repoRoot string, log *InstallLog) (bool, error)
	// UnregisterMCPIn takes out what RegisterMCPIn recorded in log (with
	// a nil log: what it recognises as Entire's).
	UnregisterMCPIn(repoRoot string, log *InstallLog) error
	// MCPRegisteredIn reports whether the server is registered.
	MCPRegisteredIn(repoRoot string) bool
}

// mcpHosts returns the registered agents that implement MCPHost, in name
// order.
func mcpHosts() []MCPHost {
	var out []MCPHost
	for _, n := range List() {
		if a, err := Get(n); err == nil {
			if h, ok := a.(MCPHost); ok {
				out = append(out, h)
			}
		}
	}
	return out
}

// mcpEntry returns the server entry of reg: {"command":"entire","args":[...]}.
func mcpEntry(reg MCPRegistration) json.RawMessage {
	args, _ := json.Marshal(reg.Args)
	o := &Object{}
	o.Set("command", MustString(mcpCommand))
	o.Set("args", args)
	return o.Compact()
}

// RegisterMCP registers `entire mcp` for a in the repository at repoRoot,
// inserted into the agent's files at the text level like the hooks (foreign
// members kept, nothing rewritten when already in place) and recorded in
// log: mcpServers.entire in the servers file and, when the agent has one,
// "entire" in the approval file's enabledMcpjsonServers. It reports whether
// it changed a file. An agent that is no MCPHost is a no-op. A file that is
// not a JSON object is an error wrapping ErrInvalidSettings.
func RegisterMCP(repoRoot string, a Agent, log *InstallLog) (bool, error) {
	h, ok := a.(MCPHost)
	if !ok {
		return false, nil
	}
	if c, ok := a.(MCPConfigurer); ok {
		return c.RegisterMCPIn(repoRoot, log)
	}
	reg := h.MCPRegistration()
	changed, err := setServer(repoRoot, reg.ServersFile, mcpEntry(reg), log)
	if err != nil || reg.ApprovalFile == "" {
		return changed, err
	}
	approved, err := editApproval(repoRoot, reg.ApprovalFile, true, log)
	return changed || approved, err
}

// UnregisterMCP takes out of every registered MCPHost's files what
// RegisterMCP recorded in log, byte for byte; a file RegisterMCP created is
// removed when nothing else is left in it. With a nil log (an older
// install) it removes the "entire" server entries whose command is Entire's
// and the approvals, and the objects and files that leaves empty. The
// servers files are edited first, then the approval files. Missing files
// are not an error.
func UnregisterMCP(repoRoot string, log *InstallLog) error {
	var servers, approvals []string
	for _, h := range mcpHosts() {
		if c, ok := h.(MCPConfigurer); ok {
			if err := c.UnregisterMCPIn(repoRoot, log); err != nil {
				return err
			}
			continue
		}
		reg := h.MCPRegistration()
		servers = AppendUnique(servers, reg.ServersFile)
		approvals = AppendUnique(approvals, reg.ApprovalFile) // none when ""
	}
	for _, rel := range servers {
		if err := removeServer(repoRoot, rel, log); err != nil {
			return err
		}
	}
	for _, rel := range approvals {
		if _, err := editApproval(repoRoot, rel, false, log); err != nil {
			return err
		}
	}
	return nil
}

// MCPRegistered reports whether the servers file of a registered MCPHost
// in the repository at repoRoot registers Entire's server.
func MCPRegistered(repoRoot string) bool {
	for _, h := range mcpHosts() {
		if c, ok := h.(MCPConfigurer); ok {
			if c.MCPRegisteredIn(repoRoot) {
				return true
			}
			continue
		}
		f, err := ReadSettingsFile(filepath.Join(repoRoot, h.MCPRegistration().ServersFile), true)
		if err != nil || !f.Exists {
			continue
		}
		if raw, ok := f.Doc.Get("mcpServers", MCPServerName); ok && isEntireServer(raw) {
			return true
		}
	}
	return false
}

// MCPFiles returns the files RegisterMCP may create for the registered
// agents, and their parent directories, relative to the repository root
// (slash-separated, sorted, without duplicates).
func MCPFiles() []string {
	var out []string
	for _, h := range mcpHosts() {
		reg := h.MCPRegistration()
		for _, rel := range []string{reg.ServersFile, reg.ApprovalFile} {
			if rel == "" {
				continue
			}
			out = append(out, rel)
			for d := path.Dir(rel); d != "." && d != "/"; d = path.Dir(d) {
				out = append(out, d)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// IsEntireMCPTool reports whether toolName is a tool of Entire's own MCP
// server under the naming of any registered MCPHost.
func IsEntireMCPTool(toolName string) bool {
	for _, h := range mcpHosts() {
		for _, p := range h.MCPToolPrefixes(MCPServerName) {
			if strings.HasPrefix(toolName, p) {
				return true
			}
		}
	}
	return false
}

// isEntireServer reports whether a server entry runs Entire: its command is
// "entire" or one a registered MCPHost recognises.
func isEntireServer(raw json.RawMessage) bool {
	var e struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return false
	}
	if e.Command == mcpCommand {
		return true
	}
	for _, h := range mcpHosts() {
		if h.IsEntireMCPCommand(e.Command) {
			return true
		}
	}
	return false
}

func setServer(repoRoot, rel string, entry json.RawMessage, log *InstallLog) (bool, error) {
	p := filepath.Join(repoRoot, rel)
	f, err := ReadSettingsFile(p, true)
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
		if isEntireServer(old) {
			f.Added.Member([]string{"mcpServers", MCPServerName}, entry)
		}
	}
	if _, err := f.Save(); err != nil {
		return false, fmt.Errorf("register mcp server in %s: %w", p, err)
	}
	return true, nil
}

func removeServer(repoRoot, rel string, log *InstallLog) error {
	f, err := ReadSettingsFile(filepath.Join(repoRoot, rel), true)
	if err != nil || !f.Exists {
		return err
	}
	rec := log.Lookup(rel)
	if rec == nil {
		raw, ok := f.Doc.Get("mcpServers", MCPServerName)
		if !ok || !isEntireServer(raw) {
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
// enabledMcpjsonServers array of the approval file rel.
func editApproval(repoRoot, rel string, add bool, log *InstallLog) (bool, error) {
	p := filepath.Join(repoRoot, rel)
	f, err := ReadSettingsFile(p, true)
	if err != nil {
		return false, err
	}
	if !add && !f.Exists {
		return false, nil
	}
	if k := f.Doc.Kind("enabledMcpjsonServers"); k != 0 && k != '[' && k != 'v' {
		return false, fmt.Errorf("%s: %w: enabledMcpjsonServers is not an array", p, ErrInvalidSettings)
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
		if err := f.Append([]string{"enabledMcpjsonServers"}, MustString(MCPServerName)); err != nil {
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
		rec.Element([]string{"enabledMcpjsonServers"}, MustString(MCPServerName))
	}
	if !f.Doc.Undo(rec) {
		return false, nil
	}
	return true, f.SaveOrRemove(log, rel)
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
