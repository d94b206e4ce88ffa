package copilotcli

import (
	"fmt"
	"strings"

	"github.com/entirecli/entire/agent"
)

// HooksPath is the repository hooks file Entire writes, relative to the
// repository root. Copilot CLI loads every .json file of .github/hooks.
const HooksPath = ".github/hooks/entire.json"

// Command forms. Copilot runs the "bash" command of a handler with the
// repository as its working directory and COPILOT_PROJECT_DIR set.
const (
	commandPrefix         = "entire hooks copilot-cli "
	localDevCommandPrefix = `go run "$COPILOT_PROJECT_DIR/cmd/entire/main.go" hooks copilot-cli `
	ownedPrefix           = "entire "
	ownedLocalDevPrefix   = `go run "$COPILOT_PROJECT_DIR/cmd/entire/main.go" `
)

// hookTimeoutSec bounds each hook.
const hookTimeoutSec = 30

// Hook verbs (subcommands of `entire hooks copilot-cli`).
const (
	VerbSessionStart = "session-start"
	VerbPromptSubmit = "user-prompt-submitted"
	VerbAgentStop    = "agent-stop"
	VerbSessionEnd   = "session-end"
)

// HookTable returns the hook table, in installation order. Copilot's tool
// hooks cannot replace a tool's output and its tools' files are in the
// events file: none runs per tool call.
func HookTable() []agent.HookSpec {
	row := func(event, verb string, t agent.HookType) agent.HookSpec {
		return agent.HookSpec{Event: event, Verb: verb, Type: t}
	}
	return []agent.HookSpec{
		row("sessionStart", VerbSessionStart, agent.HookSessionStart),
		row("userPromptSubmitted", VerbPromptSubmit, agent.HookUserPromptSubmit),
		row("agentStop", VerbAgentStop, agent.HookStop),
		row("sessionEnd", VerbSessionEnd, agent.HookSessionEnd),
	}
}

// eventOf returns the Copilot event of a hook type.
func eventOf(t agent.HookType) string {
	for _, s := range HookTable() {
		if s.Type == t {
			return s.Event
		}
	}
	return ""
}

// HookCommand returns the command line of verb.
func HookCommand(verb string, localDev bool) string {
	if localDev {
		return localDevCommandPrefix + verb
	}
	return commandPrefix + verb
}

// IsEntireCommand reports whether a hook command belongs to Entire.
func IsEntireCommand(command string) bool {
	return strings.HasPrefix(command, ownedPrefix) || strings.HasPrefix(command, ownedLocalDevPrefix)
}

// handler returns the handler object of verb.
func handler(verb string, localDev bool) []byte {
	o := &agent.Object{}
	o.Set("type", agent.MustString("command"))
	o.Set("bash", agent.MustString(HookCommand(verb, localDev)))
	o.Set("timeoutSec", []byte(fmt.Sprint(hookTimeoutSec)))
	return o.Compact()
}

// hookFile is the hooks file Entire writes.
func hookFile() agent.FlatHookFile {
	return agent.FlatHookFile{Path: HooksPath, CommandKey: "bash", Table: HookTable, Command: HookCommand, Handler: handler,
		IsOurs: IsEntireCommand, StopEvent: "agentStop", StopVerb: VerbAgentStop}
}

// InstallHooksIn writes Entire's handlers into
// <repoRoot>/.github/hooks/entire.json ({"version": 1, "hooks": {...}}) at
// the text level, recording what it inserts in opts.Log, following the
// agent.HookInstaller contract.
func InstallHooksIn(repoRoot string, opts agent.HookInstallOptions) (int, error) {
	return hookFile().Install(repoRoot, opts)
}

// UninstallHooksIn takes out of <repoRoot>/.github/hooks/entire.json what
// the install recorded in log, byte for byte, and every Entire handler; a
// file enable created is removed when nothing else is left in it.
func UninstallHooksIn(repoRoot string, log *agent.InstallLog) error {
	return hookFile().Uninstall(repoRoot, log)
}

// HooksInstalledIn reports whether <repoRoot>/.github/hooks/entire.json
// has Entire's agentStop handler.
func HooksInstalledIn(repoRoot string) (bool, error) { return hookFile().Installed(repoRoot) }

// HookTable implements agent.HookedSpec.
func (spec) HookTable() []agent.HookSpec { return HookTable() }

// InstallHooksIn implements agent.HookInstaller.
func (spec) InstallHooksIn(repoRoot string, opts agent.HookInstallOptions) (int, error) {
	return InstallHooksIn(repoRoot, opts)
}

// UninstallHooksIn implements agent.HookInstaller.
func (spec) UninstallHooksIn(repoRoot string, log *agent.InstallLog) error {
	return UninstallHooksIn(repoRoot, log)
}

// HooksInstalledIn implements agent.HookInstaller.
func (spec) HooksInstalledIn(repoRoot string) (bool, error) { return HooksInstalledIn(repoRoot) }
