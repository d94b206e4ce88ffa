package copilotcli

import "github.com/entirecli/entire/agent"

// EnableSpec lists the hooks file and says how the user trusts it: in
// prompt mode Copilot CLI loads a repository's hooks only in a trusted
// folder, and skips them silently elsewhere.
func (a *Agent) EnableSpec() agent.EnableSpec {
	return agent.EnableSpec{
		Files: []agent.SetupFile{
			{Path: HooksPath, What: "hooks (commit it: teammates' sessions are recorded too)"},
		},
		Trust: "Copilot CLI runs a repository's hooks only in a trusted folder: start copilot in this repository " +
			"and trust the folder (it is kept in ~/.copilot/config.json as trustedFolders).",
	}
}
