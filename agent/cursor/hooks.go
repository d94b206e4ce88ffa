package cursor

import (
	"encoding/json"
	"strings"

	"github.com/entirecli/entire/agent"
)

// HooksPath is the project hooks file Cursor reads, relative to the
// repository root.
const HooksPath = ".cursor/hooks.json"

// Command prefixes of Entire's hooks. Cursor runs project hooks from the
// project root.
const (
	commandPrefix         = "entire hooks cursor "
	localDevCommandPrefix = `go run "$CURSOR_PROJECT_DIR/cmd/entire/main.go" hooks cursor `
	ownedPrefix           = "entire "
	ownedLocalDevPrefix   = `go run "$CURSOR_PROJECT_DIR/cmd/entire/main.go" `
)

// Hook verbs (subcommands of `entire hooks cursor`).
const (
	VerbSessionStart  = "session-start"
	VerbBeforeSubmit  = "before-submit-prompt"
	VerbStop          = "stop"
	VerbSessionEnd    = "session-end"
	VerbPreCompact    = "pre-compact"
	VerbSubagentStart = "subagent-start"
	VerbSubagentStop  = "subagent-stop"
	VerbAfterFileEdit = "after-file-edit"
)

// HookTable returns the hook table, in installation order. preCompact
// changes nothing Entire keeps (the transcript file is not rewritten):
// it is logged. afterFileEdit names a file the agent wrote, which the
// turn's work tree holds anyway.
func HookTable() []agent.HookSpec {
	row := func(event, verb string, t agent.HookType) agent.HookSpec {
		return agent.HookSpec{Event: event, Verb: verb, Type: t}
	}
	return []agent.HookSpec{
		row("sessionStart", VerbSessionStart, agent.HookSessionStart),
		row("beforeSubmitPrompt", VerbBeforeSubmit, agent.HookUserPromptSubmit),
		row("stop", VerbStop, agent.HookStop),
		row("sessionEnd", VerbSessionEnd, agent.HookSessionEnd),
		row("preCompact", VerbPreCompact, agent.HookPreCompress),
		row("subagentStart", VerbSubagentStart, agent.HookSubagentStart),
		row("subagentStop", VerbSubagentStop, agent.HookSubagentStop),
		row("afterFileEdit", VerbAfterFileEdit, agent.HookPostToolUse),
	}
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

// handler returns the handler object of verb: {"command": …}.
func handler(verb string, localDev bool) []byte {
	o := &agent.Object{}
	o.Set("command", agent.MustString(HookCommand(verb, localDev)))
	return o.Compact()
}

// hookFile is the hooks file Entire writes into.
func hookFile() agent.FlatHookFile {
	return agent.FlatHookFile{Path: HooksPath, CommandKey: "command", Table: HookTable, Command: HookCommand, Handler: handler,
		IsOurs: IsEntireCommand, StopEvent: "stop", StopVerb: VerbStop}
}

// InstallHooksIn merges Entire's handlers into <repoRoot>/.cursor/hooks.json
// at the text level (agent.FlatHookFile), recording what it inserts in
// opts.Log.
func InstallHooksIn(repoRoot string, opts agent.HookInstallOptions) (int, error) {
	return hookFile().Install(repoRoot, opts)
}

// UninstallHooksIn takes out what the install recorded in log, byte for
// byte, and every Entire handler.
func UninstallHooksIn(repoRoot string, log *agent.InstallLog) error {
	return hookFile().Uninstall(repoRoot, log)
}

// HooksInstalledIn reports whether the file has Entire's stop handler.
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

// EmptyHookAnswer returns {}: Cursor reads JSON on every path.
func (a *Agent) EmptyHookAnswer() map[string]any { return map[string]any{} }

// HookFailure reports a failure on stderr with exit status 1, which
// Cursor takes for a failed hook and goes past (2 would block).
func (a *Agent) HookFailure(string) (map[string]any, int) { return nil, 1 }

// WriteHookAnswer answers in Cursor's shapes: sessionStart's context as
// additional_context, subagentStart an allow (an answer without a
// permission may be taken for a refusal), and {} otherwise.
func (a *Agent) WriteHookAnswer(t agent.HookType, out map[string]any) []byte {
	answer := map[string]any{}
	switch t {
	case agent.HookSessionStart:
		if hso, ok := out["hookSpecificOutput"].(map[string]any); ok {
			if text, _ := hso["additionalContext"].(string); text != "" {
				answer["additional_context"] = text
			}
		}
	case agent.HookSubagentStart:
		answer["permission"] = "allow"
	}
	b, _ := json.Marshal(answer)
	return append(b, '\n')
}
