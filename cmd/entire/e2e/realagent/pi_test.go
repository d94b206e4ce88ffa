//go:build realagent

package realagent

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest/realagent"
)

// pi is the Pi coding agent in print mode with JSON events, its model the
// scripted server's Chat Completions; entire's extension forwards its
// events.
type pi struct {
	inst realagent.Installed
	bin  string
}

func newPi(t *testing.T, inst realagent.Installed) client {
	return pi{inst: inst, bin: realagent.Binary(t, inst)}
}

func (c pi) name() string    { return c.inst.Label() }
func (pi) agentFlag() string { return "pi" }
func (c pi) binary() string  { return c.bin }

func (pi) write(path, content string) realagent.ToolCall {
	return realagent.ToolCall{Name: "write", Input: map[string]any{"path": path, "content": content}}
}

func (pi) edit(path, old, new string) realagent.ToolCall {
	return realagent.ToolCall{Name: "edit", Input: map[string]any{"path": path, "edits": []any{map[string]any{"oldText": old, "newText": new}}}}
}

func (pi) bash(command string) realagent.ToolCall {
	return realagent.ToolCall{Name: "bash", Input: map[string]any{"command": command}}
}

func (pi) delegate(string, string) realagent.ToolCall    { return realagent.ToolCall{} }
func (pi) mcp(string, map[string]any) realagent.ToolCall { return realagent.ToolCall{} }
func (pi) finish(result string, u realagent.Usage) realagent.Step {
	return realagent.Step{Text: result, Usage: u}
}
func (pi) taskSteps(int, string) []realagent.Step { return nil }
func (pi) subagentResult() (string, string)       { return "", "" }
func (pi) shellRunsGitHooks() bool                { return true }
func (pi) asksConclusion() bool                   { return false }

func (pi) promptArgs(prompt string) []string {
	return []string{"--provider", "fake", "--model", "fake-model", "--mode", "json", "-p", prompt}
}

func (c pi) resumeArgs(prompt, sessionID string) []string {
	return append([]string{"--session", sessionID}, c.promptArgs(prompt)...)
}

func (c pi) latestArgs(prompt string) []string {
	return append([]string{"--continue"}, c.promptArgs(prompt)...)
}

func (pi) untrustedArgs(string) []string { return nil }
func (pi) subagents() bool               { return false }
func (pi) hides() bool                   { return false }
func (pi) mcpNotes() bool                { return false }
func (pi) tokenKind() realagent.Kind     { return realagent.KindChat }
func (pi) cacheWrites() bool             { return false }
func (pi) startEvent() string            { return "session_start" }
func (pi) turnEndEvent() string          { return "agent_end" }
func (pi) transcriptGlob(home, id string) string {
	return filepath.Join(home, ".pi", "agent", "sessions", "*", "*_"+id+".jsonl")
}
func (pi) manyFiles() bool { return false }

// observe: the session line carries the session; the answer is the text
// of the last assistant message_end.
func (pi) observe(t *testing.T, ev streamEvent, run *liveRun) {
	switch ev.Type {
	case "session":
		run.sessionID = ev.ID
	case "message_end":
		var m struct {
			Role    string `json:"role"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			StopReason   string `json:"stopReason"`
			ErrorMessage string `json:"errorMessage"`
		}
		if json.Unmarshal(ev.Message, &m) != nil || m.Role != "assistant" {
			return
		}
		if m.StopReason == "error" {
			t.Errorf("pi model call failed: %s", m.ErrorMessage)
		}
		var text []string
		for _, c := range m.Content {
			if c.Type == "text" {
				text = append(text, c.Text)
			}
		}
		if len(text) > 0 {
			run.answer = strings.Join(text, "")
		}
	}
}

// afterRun: the extension reports a hook that failed, or entire missing,
// on stderr.
func (pi) afterRun(t *testing.T, run *liveRun) { pluginComplaints(t, "pi", run.stderr) }

// pluginComplaints fails the test on each line entire's plugin or
// extension wrote to the client's stderr.
func pluginComplaints(t *testing.T, client, stderr string) {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "entire: ") {
			t.Errorf("%s: %s", client, l)
		}
	}
}

// recordHookTimes: Pi keeps no hook times; entire's log has each hook's.
func (c pi) recordHookTimes(_, dir string) {
	recordLoggedHookTimes(c.name(), dir, map[string]string{"session-start": "session_start", "user-prompt-submit": "input", "stop": "agent_end", "session-end": "session_shutdown"})
}
