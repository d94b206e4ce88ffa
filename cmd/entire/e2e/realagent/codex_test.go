//go:build realagent

package realagent

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/cmd/entire/e2etest/realagent"
)

// codex is OpenAI's Codex CLI, on the Responses API. It runs the project's
// hooks with --dangerously-bypass-hook-trust (the tier's stand-in for the
// user trusting them in /hooks; the project is trusted in config.toml).
type codex struct {
	inst realagent.Installed
	bin  string
}

func newCodex(t *testing.T, inst realagent.Installed) client {
	return codex{inst: inst, bin: realagent.Binary(t, inst)}
}

func (c codex) name() string    { return c.inst.Label() }
func (codex) agentFlag() string { return "codex" }
func (c codex) binary() string  { return c.bin }

// patchLines prefixes every line of content with prefix.
func patchLines(prefix, content string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimSuffix(content, "\n"), "\n") {
		b.WriteString(prefix + strings.TrimSuffix(l, "\n") + "\n")
	}
	return b.String()
}

// write and edit are apply_patch patches, Codex's only file tool.
func (codex) write(path, content string) realagent.ToolCall {
	return realagent.ToolCall{Name: "apply_patch", Input: realagent.PatchInput("*** Begin Patch\n*** Add File: " + path + "\n" + patchLines("+", content) + "*** End Patch\n")}
}

func (codex) edit(path, old, new string) realagent.ToolCall {
	return realagent.ToolCall{Name: "apply_patch", Input: realagent.PatchInput("*** Begin Patch\n*** Update File: " + path + "\n@@\n" + patchLines("-", old) + patchLines("+", new) + "*** End Patch\n")}
}

func (codex) bash(command string) realagent.ToolCall {
	return realagent.ToolCall{Name: "exec_command", Input: map[string]any{"cmd": command}}
}

func (codex) delegate(string, string) realagent.ToolCall { return realagent.ToolCall{} }

func (codex) mcp(tool string, input map[string]any) realagent.ToolCall {
	return realagent.ToolCall{Name: "mcp__entire__" + tool, Input: input}
}

func (codex) finish(result string, u realagent.Usage) realagent.Step {
	return realagent.Step{Text: result, Usage: u}
}

func (codex) taskSteps(int, string) []realagent.Step { return nil }
func (codex) subagentResult() (string, string)       { return "", "" }
func (codex) shellRunsGitHooks() bool                { return true }
func (codex) asksConclusion() bool                   { return false }

func (codex) promptArgs(prompt string) []string {
	return []string{"exec", "--json", "--dangerously-bypass-hook-trust", prompt}
}

func (codex) resumeArgs(prompt, sessionID string) []string {
	return []string{"exec", "--json", "--dangerously-bypass-hook-trust", "resume", sessionID, prompt}
}

func (codex) latestArgs(prompt string) []string {
	return []string{"exec", "--json", "--dangerously-bypass-hook-trust", "resume", "--last", prompt}
}

func (codex) untrustedArgs(prompt string) []string { return []string{"exec", "--json", prompt} }

func (codex) subagents() bool           { return false }
func (codex) hides() bool               { return false }
func (codex) mcpNotes() bool            { return true }
func (codex) tokenKind() realagent.Kind { return realagent.KindResponses }
func (codex) cacheWrites() bool         { return false }
func (codex) startEvent() string        { return "SessionStart" }
func (codex) turnEndEvent() string      { return "Stop" }

// bypassWarning is the error item Codex prints for
// --dangerously-bypass-hook-trust.
const bypassWarning = "--dangerously-bypass-hook-trust"

// observe: the session is the thread; the answer the last agent message;
// an error item (but the bypass warning) fails the run.
func (codex) observe(t *testing.T, ev streamEvent, run *liveRun) {
	switch {
	case ev.Type == "thread.started":
		run.sessionID = ev.ThreadID
	case ev.Type == "item.completed" && ev.Item.Type == "agent_message":
		run.answer = ev.Item.Text
	case ev.Item.Type == "error" && !strings.Contains(ev.Item.Message, bypassWarning):
		t.Errorf("codex error item: %s", ev.Item.Message)
	case ev.Type == "error" || ev.Type == "turn.failed":
		t.Errorf("codex %s event", ev.Type)
	}
}

func (codex) afterRun(*testing.T, *liveRun) {}

// recordHookTimes: Codex keeps no hook times; entire's log has each
// hook's time from its start to its answer (the process start, a few
// milliseconds, is not in it).
func (c codex) recordHookTimes(_, dir string) {
	recordLoggedHookTimes(c.name(), dir, map[string]string{"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit", "stop": "Stop", "session-end": "SessionEnd"})
}

// recordLoggedHookTimes adds the "hook completed" times of entire's log in
// dir, named by events[verb].
func recordLoggedHookTimes(client, dir string, events map[string]string) {
	sc := bufio.NewScanner(strings.NewReader(e2etest.LogText(dir)))
	for sc.Scan() {
		var l struct {
			Msg        string `json:"msg"`
			Hook       string `json:"hook"`
			DurationMS int    `json:"duration_ms"`
		}
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "hook completed" && events[l.Hook] != "" {
			hookTimes.add(client, events[l.Hook], l.DurationMS)
		}
	}
}

func (codex) transcriptGlob(home, sessionID string) string {
	return filepath.Join(home, ".codex", "sessions", "*", "*", "*", "rollout-*-"+sessionID+".jsonl")
}

func (codex) manyFiles() bool { return false }
