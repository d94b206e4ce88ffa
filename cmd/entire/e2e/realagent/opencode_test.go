//go:build realagent

package realagent

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest/realagent"
)

// opencode is OpenCode's `run` with JSON events, its model the scripted
// server's Chat Completions; entire's plugin forwards its events.
type opencode struct {
	inst realagent.Installed
	bin  string
}

func newOpenCode(t *testing.T, inst realagent.Installed) client {
	return opencode{inst: inst, bin: realagent.Binary(t, inst)}
}

func (c opencode) name() string    { return c.inst.Label() }
func (opencode) agentFlag() string { return "opencode" }
func (c opencode) binary() string  { return c.bin }

// extraEnv names the client for what entire runs of it (resume's import).
func (c opencode) extraEnv() []string { return []string{"ENTIRE_OPENCODE_BIN=" + c.bin} }

func (opencode) write(path, content string) realagent.ToolCall {
	return realagent.ToolCall{Name: "write", Input: map[string]any{"filePath": path, "content": content}}
}

func (opencode) edit(path, old, new string) realagent.ToolCall {
	return realagent.ToolCall{Name: "edit", Input: map[string]any{"filePath": path, "oldString": old, "newString": new}}
}

func (opencode) bash(command string) realagent.ToolCall {
	return realagent.ToolCall{Name: "bash", Input: map[string]any{"command": command, "description": "Run " + command}}
}

func (opencode) delegate(string, string) realagent.ToolCall    { return realagent.ToolCall{} }
func (opencode) mcp(string, map[string]any) realagent.ToolCall { return realagent.ToolCall{} }
func (opencode) finish(result string, u realagent.Usage) realagent.Step {
	return realagent.Step{Text: result, Usage: u}
}
func (opencode) taskSteps(int, string) []realagent.Step { return nil }
func (opencode) subagentResult() (string, string)       { return "", "" }
func (opencode) shellRunsGitHooks() bool                { return true }
func (opencode) asksConclusion() bool                   { return false }

func (opencode) promptArgs(prompt string) []string {
	return []string{"run", "--format", "json", prompt}
}

func (opencode) resumeArgs(prompt, sessionID string) []string {
	return []string{"run", "--format", "json", "--session", sessionID, prompt}
}

func (opencode) latestArgs(prompt string) []string {
	return []string{"run", "--format", "json", "--continue", prompt}
}

func (opencode) untrustedArgs(string) []string { return nil }
func (opencode) subagents() bool               { return false }
func (opencode) hides() bool                   { return false }
func (opencode) mcpNotes() bool                { return false }
func (opencode) tokenKind() realagent.Kind     { return realagent.KindChat }
func (opencode) cacheWrites() bool             { return false }
func (opencode) startEvent() string            { return "session.created" }
func (opencode) turnEndEvent() string          { return "session.idle" }
func (opencode) transcriptGlob(home, id string) string {
	return filepath.Join(home, ".local", "share", "opencode", "entire", id+".jsonl")
}
func (opencode) manyFiles() bool { return false }

// observe: every line carries the session; the answer is the last text
// part; an error line fails the run.
func (opencode) observe(t *testing.T, ev streamEvent, run *liveRun) {
	if ev.OpenCodeSessionID != "" {
		run.sessionID = ev.OpenCodeSessionID
	}
	switch ev.Type {
	case "text":
		var p struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(ev.Part, &p) == nil && strings.TrimSpace(p.Text) != "" {
			run.answer = p.Text
		}
	case "error":
		t.Errorf("opencode error event: %s", ev.Part)
	}
}

// afterRun: the plugin reports a hook that failed, or entire missing, on
// stderr.
func (opencode) afterRun(t *testing.T, run *liveRun) { pluginComplaints(t, "opencode", run.stderr) }

// recordHookTimes: OpenCode keeps no hook times; entire's log has each
// hook's.
func (c opencode) recordHookTimes(_, dir string) {
	recordLoggedHookTimes(c.name(), dir, map[string]string{"session-start": "session.created", "user-prompt-submit": "chat.message", "stop": "session.idle"})
}
