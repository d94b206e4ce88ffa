//go:build realagent

package realagent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest/realagent"
)

// claude is Claude Code.
type claude struct {
	inst realagent.Installed
	bin  string
}

func newClaude(t *testing.T, inst realagent.Installed) client {
	return claude{inst: inst, bin: realagent.Binary(t, inst)}
}

func (c claude) name() string    { return c.inst.Label() }
func (claude) agentFlag() string { return "claude-code" }
func (c claude) binary() string  { return c.bin }

func (claude) write(path, content string) realagent.ToolCall {
	return realagent.ToolCall{Name: "Write", Input: map[string]any{"file_path": path, "content": content}}
}

func (claude) edit(path, old, new string) realagent.ToolCall {
	return realagent.ToolCall{Name: "Edit", Input: map[string]any{"file_path": path, "old_string": old, "new_string": new}}
}

func (claude) bash(command string) realagent.ToolCall {
	return realagent.ToolCall{Name: "Bash", Input: map[string]any{"command": command, "description": "run " + command}}
}

func (claude) delegate(description, prompt string) realagent.ToolCall {
	return realagent.ToolCall{Name: "Agent", Input: map[string]any{"description": description, "prompt": prompt, "subagent_type": "general-purpose"}}
}

func (claude) mcp(tool string, input map[string]any) realagent.ToolCall {
	return realagent.ToolCall{Name: "mcp__entire__" + tool, Input: input}
}

// finish: a Claude Code subagent's answer is its last text.
func (claude) finish(result string, u realagent.Usage) realagent.Step {
	return realagent.Step{Text: result, Usage: u}
}

func (claude) taskSteps(n int, subject string) []realagent.Step {
	return []realagent.Step{
		step(usage(n), realagent.ToolCall{Name: "TaskCreate", Input: map[string]any{"subject": subject, "description": subject, "activeForm": "Working on it"}, Optional: true}),
		step(usage(n+1), realagent.ToolCall{Name: "TaskUpdate", Input: map[string]any{"taskId": "1", "status": "completed"}, Optional: true}),
	}
}

// subagentResult: Claude Code's subagents are asked for a conclusion
// block, whose summary explain shows.
func (claude) subagentResult() (string, string) {
	return subFinal, "Wrote sub.txt as the parent asked."
}

func (claude) shellRunsGitHooks() bool { return true }

func (claude) asksConclusion() bool { return true }

func (claude) promptArgs(prompt string) []string {
	return []string{"-p", prompt, "--dangerously-skip-permissions", "--output-format", "stream-json", "--verbose", "--include-hook-events"}
}

func (c claude) resumeArgs(prompt, sessionID string) []string {
	return append(c.promptArgs(prompt), "--resume", sessionID)
}

func (c claude) latestArgs(prompt string) []string {
	return append(c.promptArgs(prompt), "--continue")
}

func (claude) untrustedArgs(string) []string { return nil }

func (claude) subagents() bool { return true }
func (claude) hides() bool     { return true }
func (claude) mcpNotes() bool  { return true }

func (claude) tokenKind() realagent.Kind { return realagent.KindClaude }
func (claude) cacheWrites() bool         { return true }
func (claude) startEvent() string        { return "SessionStart" }
func (claude) turnEndEvent() string      { return "Stop" }

// observe: with --include-hook-events every hook's response is an event;
// the result event carries the answer.
func (claude) observe(t *testing.T, ev streamEvent, run *liveRun) {
	switch {
	case ev.Type == "system" && ev.Subtype == "init":
		// The run's session: with --continue, 2.1.332 runs SessionStart
		// under a fresh ID before it loads the session it continues.
		run.sessionID = ev.SessionID
	case ev.Type == "system" && ev.Subtype == "hook_response":
		if ev.ExitCode == nil || *ev.ExitCode != 0 || ev.Outcome != "success" {
			t.Errorf("claude hook %s: exit %v, outcome %q, stderr %q", ev.HookName, ev.ExitCode, ev.Outcome, ev.Stderr)
		}
	case ev.Type == "result" && run.answer == "":
		// The turn's answer; a background subagent's notification
		// starts one more model call, whose result follows.
		run.answer = ev.Result
	}
}

func (claude) afterRun(*testing.T, *liveRun) {}

// recordHookTimes reads the hook_success attachments Claude Code writes in
// its transcripts.
func (c claude) recordHookTimes(home, _ string) {
	files, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.Contains(line, `"hook_success"`) {
				continue
			}
			var e struct {
				Attachment struct {
					Type       string `json:"type"`
					HookEvent  string `json:"hookEvent"`
					DurationMs int    `json:"durationMs"`
				} `json:"attachment"`
			}
			if json.Unmarshal([]byte(line), &e) == nil && e.Attachment.Type == "hook_success" {
				hookTimes.add(c.name(), e.Attachment.HookEvent, e.Attachment.DurationMs)
			}
		}
	}
}

func (claude) transcriptGlob(home, sessionID string) string {
	return filepath.Join(home, ".claude", "projects", "*", sessionID+".jsonl")
}

func (claude) manyFiles() bool { return false }
