package opencode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/entirecli/entire/agent"
)

// Hook verbs (subcommands of `entire hooks opencode`), one per OpenCode
// event the plugin forwards.
const (
	VerbSessionStart = "session-start"
	VerbPromptSubmit = "user-prompt-submit"
	VerbPreTool      = "pre-tool"
	VerbPostTool     = "post-tool"
	VerbStop         = "stop"
	VerbCompact      = "compact"
)

// HookTable returns the hook table: OpenCode's event or plugin hook and
// the verb the plugin runs for it. OpenCode's `run` has no session end:
// an idle session is ended as for a killed agent.
func HookTable() []agent.HookSpec {
	row := func(event, verb string, t agent.HookType) agent.HookSpec {
		return agent.HookSpec{Event: event, Verb: verb, Type: t}
	}
	return []agent.HookSpec{
		row("session.created", VerbSessionStart, agent.HookSessionStart),
		row("chat.message", VerbPromptSubmit, agent.HookUserPromptSubmit),
		row("tool.execute.before", VerbPreTool, agent.HookPreToolUse),
		row("tool.execute.after", VerbPostTool, agent.HookPostToolUse),
		row("session.idle", VerbStop, agent.HookStop),
		row("session.compacted", VerbCompact, agent.HookPreCompress),
	}
}

// maxPayload bounds what a hook reads: the stop payload carries the
// session.
const maxPayload = 64 << 20

// stopPayload is the part of the stop payload that holds the session, as
// `opencode export` prints it.
type stopPayload struct {
	SessionID string            `json:"session_id"`
	Session   json.RawMessage   `json:"info"`
	Messages  []json.RawMessage `json:"messages"`
}

// ParseHookInput parses a payload of the plugin (snake_case, as
// agent.DecodeHookInput reads). The transcript is entire's copy of the
// session (SessionRef, see TranscriptPath); the stop payload carries the
// session, which is written there first. Prompts lose the quotes
// `opencode run` puts around its message.
func (a *Agent) ParseHookInput(hookType agent.HookType, r io.Reader) (*agent.HookInput, error) {
	data, tooLarge, err := agent.ReadAtMost(r, maxPayload)
	if err != nil {
		return nil, fmt.Errorf("opencode %s: read hook input: %w", hookType, err)
	}
	if tooLarge {
		return nil, fmt.Errorf("opencode %s: more than %d bytes: %w", hookType, maxPayload, agent.ErrMalformedInput)
	}
	var session *stopPayload
	if hookType == agent.HookStop {
		var p stopPayload
		if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' && json.Unmarshal(t, &p) == nil && len(p.Session) > 0 {
			session = &p
			// The rest of the payload is small once the session is out.
			data = bytes.TrimSpace(data)
			var rest map[string]json.RawMessage
			if json.Unmarshal(data, &rest) == nil {
				delete(rest, "info")
				delete(rest, "messages")
				data, _ = json.Marshal(rest)
			}
		}
	}
	in, err := a.HookBase.ParseHookInput(hookType, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	in.UserPrompt = agent.TrimWrappingQuotes(in.UserPrompt)
	if in.SessionID == "" {
		return in, nil
	}
	path, err := a.TranscriptPath(in.SessionID)
	if err != nil {
		return in, nil // no transcript for an ID that cannot name a file; dispatch refuses the ID
	}
	in.SessionRef = path
	if session != nil {
		if err := writeTranscript(path, session.Session, session.Messages); err != nil {
			return nil, fmt.Errorf("opencode %s: %w", hookType, err)
		}
	}
	return in, nil
}

// InstallHooksIn writes the plugin into repoRoot (agent.PluginFile) and
// seeds .opencode with OpenCode's plugin package where it can (see
// seedDeps), recording what it creates in opts.Log.
func InstallHooksIn(repoRoot string, opts agent.HookInstallOptions) (int, error) {
	n, err := Plugin().Install(repoRoot, opts)
	if err != nil {
		return n, err
	}
	if _, err := New().seedDeps(repoRoot, opts.Log); err != nil {
		return n, err
	}
	return n, nil
}

// UninstallHooksIn removes the plugin when it is entire's, and what
// enable seeded .opencode with (or, when enable created .opencode, what
// OpenCode generated in it); the directories enable created go once
// empty.
func UninstallHooksIn(repoRoot string, log *agent.InstallLog) error {
	if err := Plugin().Uninstall(repoRoot); err != nil {
		return err
	}
	return removeSeeded(repoRoot, log)
}

// HooksInstalledIn reports whether repoRoot has entire's plugin.
func HooksInstalledIn(repoRoot string) (bool, error) { return Plugin().Installed(repoRoot) }

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
