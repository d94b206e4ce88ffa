package codex

import "github.com/entirecli/entire/agent"

// EnableSpec lists the hooks file and the project config that registers
// the entire MCP server, and says how the user trusts the hooks: Codex
// runs project hooks only in a trusted project, each hook trusted by its
// hash, and skips the others silently.
func (a *Agent) EnableSpec() agent.EnableSpec {
	return agent.EnableSpec{
		Files: []agent.SetupFile{
			{Path: HooksPath, What: "hooks (commit it: teammates' sessions are recorded too)"},
			{Path: ConfigPath, What: "the entire MCP server (commit it)"},
		},
		Trust: "Codex runs a project's hooks only once you trust them: start codex in this repository, " +
			"trust the project, then open /hooks and trust Entire's hooks (again after each `entire enable` that changes them).",
	}
}
