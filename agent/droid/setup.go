package droid

import "github.com/entirecli/entire/agent"

// EnableSpec lists the hook settings.
func (a *Agent) EnableSpec() agent.EnableSpec {
	return agent.EnableSpec{Files: []agent.SetupFile{
		{Path: SettingsPath, What: "hooks (commit it: teammates' sessions are recorded too)"},
	}}
}
