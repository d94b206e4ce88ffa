//go:build realagent

package realagent

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest/realagent"
)

// gemini is Gemini CLI.
type gemini struct {
	inst realagent.Installed
	bin  string
}

func newGemini(t *testing.T, inst realagent.Installed) client {
	return gemini{inst: inst, bin: realagent.Binary(t, inst)}
}

func (g gemini) name() string    { return g.inst.Label() }
func (gemini) agentFlag() string { return "gemini" }
func (g gemini) binary() string  { return g.bin }

func (gemini) write(path, content string) realagent.ToolCall {
	return realagent.ToolCall{Name: "write_file", Input: map[string]any{"file_path": path, "content": content}}
}

func (gemini) edit(path, old, new string) realagent.ToolCall {
	return realagent.ToolCall{Name: "replace", Input: map[string]any{"file_path": path, "old_string": old, "new_string": new, "instruction": "edit " + filepath.Base(path)}}
}

func (gemini) bash(command string) realagent.ToolCall {
	return realagent.ToolCall{Name: "run_shell_command", Input: map[string]any{"command": command, "description": "run " + command}}
}

func (gemini) delegate(_, prompt string) realagent.ToolCall {
	return realagent.ToolCall{Name: "invoke_agent", Input: map[string]any{"agent_name": "generalist", "prompt": prompt}}
}

func (gemini) mcp(tool string, input map[string]any) realagent.ToolCall {
	return realagent.ToolCall{Name: "mcp_entire_" + tool, Input: input}
}

// finish: Gemini CLI's subagents must call complete_task with their
// answer as the response.
func (gemini) finish(result string, u realagent.Usage) realagent.Step {
	return realagent.Step{Tools: []realagent.ToolCall{{Name: "complete_task", Input: map[string]any{"result": map[string]any{"response": result}}}}, Usage: u}
}

// taskSteps: Gemini CLI has no task list.
func (gemini) taskSteps(int, string) []realagent.Step { return nil }

// subagentResult: Gemini CLI's subagents answer with complete_task's
// response alone (no SubagentStart hook asks them for a conclusion).
func (gemini) subagentResult() (string, string) {
	return "Subagent wrote sub.txt.", "Subagent wrote sub.txt."
}

func (gemini) shellRunsGitHooks() bool { return false }

func (gemini) asksConclusion() bool { return false }

func (gemini) promptArgs(prompt string) []string {
	return []string{"-p", prompt, "--yolo", "--output-format", "stream-json", "--debug"}
}

func (c gemini) resumeArgs(prompt, sessionID string) []string {
	return append(c.promptArgs(prompt), "--resume", sessionID)
}

func (c gemini) latestArgs(prompt string) []string {
	return append(c.promptArgs(prompt), "--resume", "latest")
}

func (gemini) untrustedArgs(string) []string { return nil }

func (gemini) subagents() bool { return true }
func (gemini) hides() bool     { return true }
func (gemini) mcpNotes() bool  { return true }

func (gemini) tokenKind() realagent.Kind { return realagent.KindGeminiStream }
func (gemini) cacheWrites() bool         { return false }
func (gemini) startEvent() string        { return "SessionStart" }
func (gemini) turnEndEvent() string      { return "AfterAgent" }

// observe: the answer streams as assistant messages; the result event
// carries the run's status.
func (gemini) observe(t *testing.T, ev streamEvent, run *liveRun) {
	switch {
	case ev.Type == "message" && ev.Role == "assistant":
		run.answer += ev.Content
	case ev.Type == "result" && ev.Status != "" && ev.Status != "success":
		t.Errorf("gemini result status %q", ev.Status)
	}
}

// geminiHookLine is Gemini CLI's --debug report of a hook event.
var geminiHookLine = regexp.MustCompile(`Hook execution for (\w+): (.*)`)

var geminiHookOK = regexp.MustCompile(`^\d+ hooks executed successfully, total duration: (\d+)ms`)

// afterRun reads the hook reports --debug writes to stderr: every hook
// must have succeeded; their times go to the log.
func (g gemini) afterRun(t *testing.T, run *liveRun) {
	for _, m := range geminiHookLine.FindAllStringSubmatch(run.stderr, -1) {
		ok := geminiHookOK.FindStringSubmatch(m[2])
		if ok == nil {
			t.Errorf("gemini hook %s: %s", m[1], m[2])
			continue
		}
		var ms int
		fmt.Sscan(ok[1], &ms)
		hookTimes.add(g.name(), m[1], ms)
	}
}

func (gemini) recordHookTimes(string, string) {}

// transcriptGlob: Gemini CLI names a chat file by the minute it was
// opened, so a session resumed in a later minute has two files.
func (gemini) transcriptGlob(home, sessionID string) string {
	return filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*-"+sessionID[:8]+".jsonl")
}

func (gemini) manyFiles() bool { return true }
