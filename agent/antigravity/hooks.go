package antigravity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/jsonedit"
)

// HooksPath is the project hooks file agy reads, relative to the
// repository root.
const HooksPath = ".agents/hooks.json"

// hookName is the named hook Entire owns in the file: agy's hooks file
// maps names to hook configurations.
const hookName = "entire"

// Command prefixes of Entire's hooks.
const (
	commandPrefix         = "entire hooks antigravity "
	localDevCommandPrefix = `go run ./cmd/entire/main.go hooks antigravity `
)

// Hook verbs (subcommands of `entire hooks antigravity`).
const (
	VerbPreInvocation  = "pre-invocation"
	VerbPostInvocation = "post-invocation"
	VerbPreToolUse     = "pre-tool-use"
	VerbPostToolUse    = "post-tool-use"
	VerbStop           = "stop"
)

// HookTable returns the installed hooks. PreInvocation starts a turn at
// its first model call and Stop ends it; the tool and PostInvocation
// events are understood (a hand-installed hook of them is answered as
// agy expects) but not installed: they tell Entire nothing the turn's
// work tree does not, and each would be a process per tool or model call.
// PreToolUse in particular must answer a decision, or agy blocks the tool.
func HookTable() []agent.HookSpec {
	return []agent.HookSpec{
		{Event: "PreInvocation", Verb: VerbPreInvocation, Type: agent.HookPreToolUse},
		{Event: "Stop", Verb: VerbStop, Type: agent.HookStop},
	}
}

// HookCommand returns the command line of verb.
func HookCommand(verb string, localDev bool) string {
	if localDev {
		return localDevCommandPrefix + verb
	}
	return commandPrefix + verb
}

// config returns Entire's named hook configuration: the invocation and
// Stop events take flat lists of handlers.
func config(localDev bool) []byte {
	c := &agent.Object{}
	for _, s := range HookTable() {
		h := &agent.Object{}
		h.Set("type", agent.MustString("command"))
		h.Set("command", agent.MustString(HookCommand(s.Verb, localDev)))
		c.Set(s.Event, append(append([]byte("["), h.Compact()...), ']'))
	}
	return c.Compact()
}

// InstallHooksIn sets Entire's named hook in <repoRoot>/.agents/hooks.json
// at the text level, keeping every other hook byte for byte, recording
// what it inserts in opts.Log; it returns the number of events it hooks
// (0 when the file already has them).
func InstallHooksIn(repoRoot string, opts agent.HookInstallOptions) (int, error) {
	path := filepath.Join(repoRoot, HooksPath)
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil {
		return 0, err
	}
	for _, k := range f.Doc.Keys() {
		if f.Doc.Kind(k) != '{' {
			return 0, fmt.Errorf("%s: %w: hook %q is not an object", path, agent.ErrInvalidSettings, k)
		}
	}
	f.Added = opts.Log.Record(HooksPath)
	want := config(opts.LocalDev)
	if cur, ok := f.Doc.Get(hookName); ok {
		if !opts.Force && compact(cur) == compact(want) {
			return 0, nil
		}
		if _, err := f.Doc.Remove(jsonedit.Path{hookName}); err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := f.Insert(nil, hookName, want, true); err != nil {
		return 0, err
	}
	if _, err := f.Save(); err != nil {
		return 0, err
	}
	return len(HookTable()), nil
}

// compact returns raw re-encoded without spaces, keys in order.
func compact(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// UninstallHooksIn takes Entire's named hook out of the file, byte for
// byte what the install recorded; a file enable created is removed when
// nothing else is left in it.
func UninstallHooksIn(repoRoot string, log *agent.InstallLog) error {
	path := filepath.Join(repoRoot, HooksPath)
	f, err := agent.ReadSettingsFile(path, true)
	if err != nil || !f.Exists {
		return err
	}
	if rec := log.Lookup(HooksPath); rec != nil {
		f.Doc.Undo(rec)
	}
	if _, ok := f.Doc.Get(hookName); ok {
		if _, err := f.Doc.Remove(jsonedit.Path{hookName}); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return f.SaveOrRemove(log, HooksPath)
}

// HooksInstalledIn reports whether the file has Entire's Stop hook.
func HooksInstalledIn(repoRoot string) (bool, error) {
	f, err := agent.ReadSettingsFile(filepath.Join(repoRoot, HooksPath), true)
	if err != nil || !f.Exists {
		return false, err
	}
	raw, ok := f.Doc.Get(hookName, "Stop")
	if !ok {
		return false, nil
	}
	for _, local := range []bool{false, true} {
		if strings.Contains(string(raw), HookCommand(VerbStop, local)) {
			return true, nil
		}
	}
	return false, nil
}

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

// payload is what agy sends every hook (camelCase), with the members of
// the events Entire reads.
type payload struct {
	ConversationID string   `json:"conversationId"`
	WorkspacePaths []string `json:"workspacePaths"`
	TranscriptPath string   `json:"transcriptPath"`
	InvocationNum  *int     `json:"invocationNum"`
	FullyIdle      *bool    `json:"fullyIdle"`
	ToolCall       *struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"toolCall"`
}

// maxPayload bounds a hook payload, as agent.DecodeHookInput does.
const maxPayload = 64 << 20

// ParseHookInput reads a payload in agy's shape as hookType (for callers
// that do not know the verb; hooks go through ParseHookEvent).
func (a *Agent) ParseHookInput(hookType agent.HookType, r io.Reader) (*agent.HookInput, error) {
	raw, tooLarge, err := agent.ReadAtMost(r, maxPayload)
	if err != nil {
		return nil, fmt.Errorf("read hook input: %w", err)
	}
	if tooLarge {
		return nil, fmt.Errorf("read hook input: more than %d bytes: %w", maxPayload, agent.ErrMalformedInput)
	}
	in, err := agent.DecodeHookInput(hookType, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	var p payload
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("parse hook input: %w: %v", agent.ErrMalformedInput, err)
	}
	in.SessionID, in.SessionRef = p.ConversationID, p.TranscriptPath
	if len(p.WorkspacePaths) > 0 {
		in.Cwd = p.WorkspacePaths[0]
	}
	if p.ToolCall != nil {
		in.ToolName, in.ToolInput = p.ToolCall.Name, nullToNil(p.ToolCall.Args)
	}
	return in, nil
}

func nullToNil(b []byte) []byte {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	return b
}

// ParseHookEvent reads the payload of a verb: PreInvocation and PreToolUse
// start a turn when none is in progress (agent.PromptlessTurns), Stop ends
// it once agy is fully idle (a Stop while background tasks run is no
// event), PostToolUse is a tool call's end; PostInvocation and unknown
// verbs are no event.
func (a *Agent) ParseHookEvent(verb string, r io.Reader, _ func(string, error)) (*agent.HookInput, error) {
	var t agent.HookType
	switch verb {
	case VerbPreInvocation, VerbPreToolUse:
		t = agent.HookPreToolUse
	case VerbPostToolUse:
		t = agent.HookPostToolUse
	case VerbStop:
		t = agent.HookStop
	default:
		t = agent.HookNotification
	}
	in, err := a.ParseHookInput(t, r)
	if err != nil {
		return nil, err
	}
	in.EventName = verb
	if t == agent.HookNotification {
		return nil, nil
	}
	if t == agent.HookStop {
		if idle, _ := in.RawData["fullyIdle"].(bool); !idle {
			return nil, nil
		}
	}
	return in, nil
}

// EmptyHookAnswer returns {}.
func (a *Agent) EmptyHookAnswer() map[string]any { return map[string]any{} }

// HookFailure reports a failure on stderr with exit status 1: agy goes on
// past a failing hook.
func (a *Agent) HookFailure(string) (map[string]any, int) { return nil, 1 }

// WriteHookAnswer answers PreToolUse with an allow (agy blocks a tool
// whose hook answers no decision; agy's own review still applies) and
// every other event with {}.
func (a *Agent) WriteHookAnswer(t agent.HookType, _ map[string]any) []byte {
	if t == agent.HookPreToolUse {
		return []byte(`{"decision":"allow"}` + "\n")
	}
	return []byte("{}\n")
}
