package pi

import "github.com/entirecli/entire/agent"

// EnableSpec lists the extension and says that Pi loads it without asking.
func (a *Agent) EnableSpec() agent.EnableSpec {
	return agent.EnableSpec{
		Files: []agent.SetupFile{
			{Path: ExtensionPath, What: "the extension that forwards Pi's events to entire (commit it: teammates' sessions are recorded too)"},
		},
		NotRunYet: "start Pi in this repository; if it has run here since enable, it did not load the extension " +
			"(run without --no-extensions).",
	}
}
