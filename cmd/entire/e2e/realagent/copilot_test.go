//go:build realagent

package realagent

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/cmd/entire/e2etest/realagent"
)

// copilot is GitHub Copilot CLI in its offline bring-your-own-key mode on
// Chat Completions; the repository is a trusted folder.
type copilot struct {
	inst realagent.Installed
	bin  string
}

func newCopilot(t *testing.T, inst realagent.Installed) client {
	return copilot{inst: inst, bin: realagent.Binary(t, inst)}
}

func (c copilot) name() string    { return c.inst.Label() }
func (copilot) agentFlag() string { return "copilot-cli" }
func (c copilot) binary() string  { return c.bin }

func (copilot) write(path, content string) realagent.ToolCall {
	return realagent.ToolCall{Name: "create", Input: map[string]any{"path": path, "file_text": content}}
}

func (copilot) edit(path, old, new string) realagent.ToolCall {
	return realagent.ToolCall{Name: "edit", Input: map[string]any{"path": path, "old_str": old, "new_str": new}}
}

func (copilot) bash(command string) realagent.ToolCall {
	return realagent.ToolCall{Name: "bash", Input: map[string]any{"command": command, "description": "run " + command}}
}

func (copilot) delegate(string, string) realagent.ToolCall { return realagent.ToolCall{} }
func (copilot) mcp(string, map[string]any) realagent.ToolCall {
	return realagent.ToolCall{}
}

func (copilot) finish(result string, u realagent.Usage) realagent.Step {
	return realagent.Step{Text: result, Usage: u}
}

func (copilot) taskSteps(int, string) []realagent.Step { return nil }
func (copilot) subagentResult() (string, string)       { return "", "" }
func (copilot) shellRunsGitHooks() bool                { return true }
func (copilot) asksConclusion() bool                   { return false }

func (copilot) promptArgs(prompt string) []string {
	return []string{"-p", prompt, "--allow-all-tools", "--allow-all-paths", "--output-format", "json", "--disable-client-telemetry"}
}

func (c copilot) resumeArgs(prompt, sessionID string) []string {
	return append(c.promptArgs(prompt), "--resume", sessionID)
}

func (c copilot) latestArgs(prompt string) []string {
	return append(c.promptArgs(prompt), "--continue")
}

func (c copilot) untrustedArgs(prompt string) []string { return c.promptArgs(prompt) }

func (copilot) subagents() bool           { return false }
func (copilot) hides() bool               { return false }
func (copilot) mcpNotes() bool            { return false }
func (copilot) tokenKind() realagent.Kind { return realagent.KindChat }
func (copilot) cacheWrites() bool         { return false }
func (copilot) startEvent() string        { return "sessionStart" }
func (copilot) turnEndEvent() string      { return "agentStop" }

// observe: the result line carries the session and the exit code; the
// answer is the last assistant message with text; a hook that did not
// succeed fails the run.
func (copilot) observe(t *testing.T, ev streamEvent, run *liveRun) {
	switch ev.Type {
	case "result":
		run.sessionID = ev.CopilotSessionID
		if ev.CopilotExitCode == nil || *ev.CopilotExitCode != 0 {
			t.Errorf("copilot result exit code %v", ev.CopilotExitCode)
		}
	case "assistant.message":
		var d struct {
			Content string `json:"content"`
		}
		if json.Unmarshal(ev.Data, &d) == nil && d.Content != "" {
			run.answer = d.Content
		}
	case "hook.end":
		var d struct {
			HookType string `json:"hookType"`
			Success  bool   `json:"success"`
		}
		if json.Unmarshal(ev.Data, &d) == nil && !d.Success {
			t.Errorf("copilot hook %s did not succeed: %s", d.HookType, ev.Data)
		}
	}
}

func (copilot) afterRun(*testing.T, *liveRun) {}

// recordHookTimes reads the hook.start and hook.end events Copilot writes
// in its sessions' events files: each hook's wall time as Copilot saw it.
func (c copilot) recordHookTimes(home, _ string) {
	files, _ := filepath.Glob(filepath.Join(home, ".copilot", "session-state", "*", "events.jsonl"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		started := map[string]time.Time{}
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var e struct {
				Type      string `json:"type"`
				Timestamp string `json:"timestamp"`
				Data      struct {
					ID       string `json:"hookInvocationId"`
					HookType string `json:"hookType"`
				} `json:"data"`
			}
			if json.Unmarshal(sc.Bytes(), &e) != nil {
				continue
			}
			at, err := time.Parse(time.RFC3339Nano, e.Timestamp)
			if err != nil {
				continue
			}
			switch e.Type {
			case "hook.start":
				started[e.Data.ID] = at
			case "hook.end":
				if s, ok := started[e.Data.ID]; ok {
					hookTimes.add(c.name(), e.Data.HookType, int(at.Sub(s).Milliseconds()))
				}
			}
		}
	}
}

func (copilot) transcriptGlob(home, sessionID string) string {
	return filepath.Join(home, ".copilot", "session-state", sessionID, "events.jsonl")
}

func (copilot) manyFiles() bool { return false }
