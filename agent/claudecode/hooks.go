package claudecode

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/jsonedit"
)

// SettingsPath is the project settings file, relative to the repository root.
const SettingsPath = ".claude/settings.json"

// MetadataDenyRule keeps Claude Code from reading Entire's session metadata.
const MetadataDenyRule = "Read(./.entire/metadata/**)"

// Command prefixes of Entire hooks. A handler whose command starts with one of
// them is Entire's (ownership test for install/uninstall).
const (
	commandPrefix         = "entire hooks claude-code "
	localDevCommandPrefix = "go run ${CLAUDE_PROJECT_DIR}/cmd/entire/main.go hooks claude-code "
	ownedPrefix           = "entire "
	ownedLocalDevPrefix   = "go run ${CLAUDE_PROJECT_DIR}/cmd/entire/main.go "
)

// Hook verbs (subcommands of `entire hooks claude-code`).
const (
	VerbSessionStart     = "session-start"
	VerbSessionEnd       = "session-end"
	VerbStop             = "stop"
	VerbUserPromptSubmit = "user-prompt-submit"
	VerbPreTask          = "pre-task"
	VerbPostTask         = "post-task"
	VerbPostTodo         = "post-todo"
	// VerbPostTool runs after every tool: large results become hides.
	VerbPostTool = "post-tool"
	// VerbSubagentStart and VerbSubagentStop frame a subagent's run.
	VerbSubagentStart = "subagent-start"
	VerbSubagentStop  = "subagent-stop"
)

// RenderRefsEnv is the variable Entire sets in the settings' "env" object,
// so that the `entire` commands Claude Code runs emit render references
// (renderrefs.EnvVar); RenderRefsValue is its value. Install adds it unless
// it is already there, uninstall removes it only when it still has this
// value (a user who set another value owns it).
const (
	RenderRefsEnv   = "ENTIRE_RENDERABLE_REFS"
	RenderRefsValue = "1"
)

// Tool-name matchers. Claude Code renamed Task to Agent in 2.1.63; both are
// matched. TaskCreate/TaskUpdate are the todo system, not subagents: they
// replaced TodoWrite (gone in 2.1.197, still matched for older clients).
const (
	TaskMatcher = "Agent|Task"
	TodoMatcher = toolTodoWrite + "|" + toolTaskCreate + "|" + toolTaskUpdate
)

// HookSpec is one row of the hook table: which Claude Code event and matcher
// run which `entire hooks claude-code` verb.
type HookSpec = agent.HookSpec

// HookTable returns the hook table, in installation order. To install a new
// hook, add a row. Callers get a fresh copy.
func HookTable() []HookSpec {
	row := func(event, matcher, verb string, t agent.HookType) HookSpec {
		return HookSpec{Event: event, Matcher: matcher, Verb: verb, Type: t}
	}
	return []HookSpec{
		row("SessionStart", "", VerbSessionStart, agent.HookSessionStart),
		row("SessionEnd", "", VerbSessionEnd, agent.HookSessionEnd),
		row("Stop", "", VerbStop, agent.HookStop),
		row("UserPromptSubmit", "", VerbUserPromptSubmit, agent.HookUserPromptSubmit),
		row("PreToolUse", TaskMatcher, VerbPreTask, agent.HookPreToolUse),
		row("PostToolUse", TaskMatcher, VerbPostTask, agent.HookPostToolUse),
		row("PostToolUse", TodoMatcher, VerbPostTodo, agent.HookPostToolUse),
		row("PostToolUse", "", VerbPostTool, agent.HookPostToolUse),
		row("SubagentStart", "", VerbSubagentStart, agent.HookSubagentStart),
		row("SubagentStop", "", VerbSubagentStop, agent.HookSubagentStop),
	}
}

// HookCommand returns the command line of verb.
func HookCommand(verb string, localDev bool) string {
	if localDev {
		return localDevCommandPrefix + verb
	}
	return commandPrefix + verb
}

// IsEntireCommand reports whether a hook command belongs to Entire (current,
// local-dev and legacy forms).
func IsEntireCommand(command string) bool {
	return strings.HasPrefix(command, ownedPrefix) || strings.HasPrefix(command, ownedLocalDevPrefix)
}

// IsTaskTool reports whether toolName is the subagent tool (Agent, or Task
// before Claude Code 2.1.63). pre-task/post-task handlers ignore other tools.
func IsTaskTool(toolName string) bool { return toolName == "Agent" || toolName == "Task" }

func editor() agent.HookEditor { return agent.HookEditor{IsOurs: IsEntireCommand} }

func wantedEntries(localDev bool) []agent.HookEntry {
	return agent.HookEntries(HookTable(), func(verb string) string { return HookCommand(verb, localDev) })
}

// InstallHooksIn merges Entire's hooks (the HookTable), the
// metadata deny rule and env.ENTIRE_RENDERABLE_REFS = "1" into
// <repoRoot>/.claude/settings.json at the text level (see
// agent.SettingsFile), recording what it inserts in opts.Log, following the
// agent.HookInstaller contract. It returns the number of hook handlers added
// (0, and the file is not rewritten, when everything is in place).
func InstallHooksIn(repoRoot string, opts agent.HookInstallOptions) (int, error) {
	path := filepath.Join(repoRoot, SettingsPath)
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil {
		return 0, err
	}
	f.Added = opts.Log.Record(SettingsPath)
	n, err := editor().Install(f, wantedEntries(opts.LocalDev), opts.Force)
	if err != nil {
		return 0, fmt.Errorf("install hooks in %s: %w", path, err)
	}
	if err := f.Ensure('{', "permissions"); err != nil {
		return 0, err
	}
	if k := f.Doc.Kind("permissions", "deny"); k != 0 && k != '[' {
		return 0, fmt.Errorf("%s: %w: permissions.deny is not an array", path, agent.ErrInvalidSettings)
	}
	deny, _ := f.Doc.Get("permissions", "deny")
	var list []json.RawMessage
	_ = json.Unmarshal(deny, &list)
	if !containsString(list, MetadataDenyRule) {
		if err := f.Ensure('[', "permissions", "deny"); err != nil {
			return 0, err
		}
		if err := f.Append([]string{"permissions", "deny"}, agent.MustString(MetadataDenyRule)); err != nil {
			return 0, err
		}
	}
	if err := f.Ensure('{', "env"); err != nil {
		return 0, err
	}
	if f.Doc.Kind("env", RenderRefsEnv) == 0 {
		if err := f.Insert([]string{"env"}, RenderRefsEnv, agent.MustString(RenderRefsValue), true); err != nil {
			return 0, err
		}
	}
	if _, err := f.Save(); err != nil {
		return 0, err
	}
	return n, nil
}

// UninstallHooksIn takes out of <repoRoot>/.claude/settings.json what the
// install recorded in log, byte for byte, and every Entire hook; what the
// user wrote, before or since, is kept. A file enable created is removed
// when nothing else is left in it. With a nil log (an older install) the
// deny rule, the render references variable (when still "1") and the
// containers these removals empty go too. A missing file is not an error.
func UninstallHooksIn(repoRoot string, log *agent.InstallLog) error {
	path := filepath.Join(repoRoot, SettingsPath)
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil {
		return err
	}
	if !f.Exists {
		return nil
	}
	if k := f.Doc.Kind("hooks"); k != 0 && k != '{' && k != 'v' {
		return fmt.Errorf("%s: %w: \"hooks\" is not an object", path, agent.ErrInvalidSettings)
	}
	editor().Remove(f.Doc, log == nil)
	rec := log.Lookup(SettingsPath)
	if rec == nil {
		rec = fallbackRecord()
	}
	f.Doc.Undo(rec)
	return f.SaveOrRemove(log, SettingsPath)
}

// fallbackRecord is what an install into a missing file inserts, used to
// uninstall an install made before the log was kept.
func fallbackRecord() *jsonedit.Record {
	r := &jsonedit.Record{}
	r.Member([]string{"hooks"}, nil)
	for _, s := range HookTable() {
		r.Member([]string{"hooks", s.Event}, nil)
	}
	r.Member([]string{"permissions"}, nil)
	r.Member([]string{"permissions", "deny"}, nil)
	r.Element([]string{"permissions", "deny"}, agent.MustString(MetadataDenyRule))
	r.Member([]string{"env"}, nil)
	r.Member([]string{"env", RenderRefsEnv}, agent.MustString(RenderRefsValue))
	return r
}

// HooksInstalledIn reports whether <repoRoot>/.claude/settings.json has
// Entire's Stop hook (current, local-dev or legacy command). A missing file
// is (false, nil); an invalid one an error.
func HooksInstalledIn(repoRoot string) (bool, error) {
	path := filepath.Join(repoRoot, SettingsPath)
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil || !f.Exists {
		return false, err
	}
	if k := f.Doc.Kind("hooks"); k != 0 && k != '{' && k != 'v' {
		return false, fmt.Errorf("%s: %w: \"hooks\" is not an object", path, agent.ErrInvalidSettings)
	}
	for _, c := range []string{
		HookCommand(VerbStop, false), HookCommand(VerbStop, true),
		"entire hooks claudecode stop", "entire rewind claude-hook --stop",
		ownedLocalDevPrefix + "hooks claudecode stop", ownedLocalDevPrefix + "rewind claude-hook --stop",
	} {
		if editor().Contains(f.Doc, "Stop", c) {
			return true, nil
		}
	}
	return false, nil
}

func containsString(list []json.RawMessage, s string) bool {
	for _, raw := range list {
		var v string
		if json.Unmarshal(raw, &v) == nil && v == s {
			return true
		}
	}
	return false
}

// HookTable implements agent.HookedSpec.
func (spec) HookTable() []HookSpec { return HookTable() }

// InstallHooksIn implements agent.HookInstaller (see the package function).
func (spec) InstallHooksIn(repoRoot string, opts agent.HookInstallOptions) (int, error) {
	return InstallHooksIn(repoRoot, opts)
}

// UninstallHooksIn implements agent.HookInstaller (see the package function).
func (spec) UninstallHooksIn(repoRoot string, log *agent.InstallLog) error {
	return UninstallHooksIn(repoRoot, log)
}

// HooksInstalledIn implements agent.HookInstaller (see the package function).
func (spec) HooksInstalledIn(repoRoot string) (bool, error) { return HooksInstalledIn(repoRoot) }
