//go:build realagent

package realagent

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/cmd/entire/e2etest/realagent"
)

// droid is Factory's droid in `droid exec` with a custom model (the
// scripted server's Chat Completions) and no Factory login. Resuming a
// session needs the login (agent/droid/AGENT.md): droid is not among the
// families every scenario runs; TestRealAgentDroidTurn plays the one turn
// it can.
type droid struct {
	inst realagent.Installed
	bin  string
}

func newDroid(t *testing.T, inst realagent.Installed) client {
	return droid{inst: inst, bin: realagent.Binary(t, inst)}
}

func (c droid) name() string    { return c.inst.Label() }
func (droid) agentFlag() string { return "droid" }
func (c droid) binary() string  { return c.bin }

func (droid) write(path, content string) realagent.ToolCall {
	return realagent.ToolCall{Name: "Create", Input: map[string]any{"file_path": path, "content": content}}
}

func (droid) edit(path, old, new string) realagent.ToolCall {
	return realagent.ToolCall{Name: "Edit", Input: map[string]any{"file_path": path, "old_str": old, "new_str": new}}
}

// bash: droid's Execute wants a summary of three to eight words starting
// with a capital.
func (droid) bash(command string) realagent.ToolCall {
	return realagent.ToolCall{Name: "Execute", Input: map[string]any{"command": command, "summary": "Run the scripted shell step"}}
}

func (droid) delegate(string, string) realagent.ToolCall    { return realagent.ToolCall{} }
func (droid) mcp(string, map[string]any) realagent.ToolCall { return realagent.ToolCall{} }
func (droid) finish(result string, u realagent.Usage) realagent.Step {
	return realagent.Step{Text: result, Usage: u}
}
func (droid) taskSteps(int, string) []realagent.Step { return nil }
func (droid) subagentResult() (string, string)       { return "", "" }
func (droid) shellRunsGitHooks() bool                { return true }
func (droid) asksConclusion() bool                   { return false }

func (droid) promptArgs(prompt string) []string {
	return []string{"exec", "-m", "custom:fake-model", "--skip-permissions-unsafe", "-o", "json", prompt}
}

func (c droid) resumeArgs(prompt, sessionID string) []string {
	return append([]string{"exec", "-s", sessionID}, c.promptArgs(prompt)[1:]...)
}

func (c droid) latestArgs(prompt string) []string { return c.promptArgs(prompt) }
func (droid) untrustedArgs(string) []string       { return nil }
func (droid) subagents() bool                     { return false }
func (droid) hides() bool                         { return false }
func (droid) mcpNotes() bool                      { return false }
func (droid) tokenKind() realagent.Kind           { return realagent.KindChat }
func (droid) cacheWrites() bool                   { return false }
func (droid) startEvent() string                  { return "SessionStart" }
func (droid) turnEndEvent() string                { return "Stop" }
func (droid) transcriptGlob(home, id string) string {
	return filepath.Join(home, ".factory", "sessions", "*", id+".jsonl")
}
func (droid) manyFiles() bool { return false }

// observe: -o json prints one result object with the session and the
// answer.
func (droid) observe(t *testing.T, ev streamEvent, run *liveRun) {
	if ev.Type == "result" || ev.Result != "" {
		run.answer = ev.Result
	}
	if ev.Subtype == "error" || ev.Type == "error" {
		t.Errorf("droid error result: %+v", ev)
	}
}

// afterRun: droid reports a hook that failed in its session file, not on
// its output; entire's log says it (checked by the test).
func (droid) afterRun(*testing.T, *liveRun) {}

func (c droid) recordHookTimes(_, dir string) {
	recordLoggedHookTimes(c.name(), dir, map[string]string{"session-start": "SessionStart", "pre-tool": "PreToolUse", "stop": "Stop", "session-end": "SessionEnd"})
}

// One `droid exec` turn (no UserPromptSubmit: the turn starts at its first
// tool call) that writes, edits and runs a shell command: a checkpoint
// with the files and the final answer, every hook succeeded, and after a
// commit explain shows the turn. droid writes no token usage into its
// session: explain says the tokens were not recorded.
func TestRealAgentDroidTurn(t *testing.T) {
	t.Parallel()
	for _, inst := range realagent.Versions(realagent.Droid) {
		t.Run(inst.Label(), func(t *testing.T) {
			t.Parallel()
			c := newDroid(t, inst)
			r := newLiveRepo(t, c)
			hello := filepath.Join(r.dir, "hello.txt")
			final := "All done: hello.txt written and edited, bash.txt made."
			r.srv.SetScript("dt", realagent.Script{
				step(usage(0), c.write(hello, "hello\n")),
				step(usage(1), c.edit(hello, "hello", "hello, world")),
				step(usage(2), c.bash("echo made > bash.txt")),
				{Text: final, Usage: usage(3)},
			})
			run := r.prompt("dt", "do the scripted turn")
			if strings.TrimSpace(run.answer) != final {
				t.Errorf("droid's answer %q", run.answer)
			}
			var res struct {
				SessionID string `json:"session_id"`
			}
			if err := json.Unmarshal([]byte(strings.TrimSpace(run.stdout)), &res); err != nil || res.SessionID == "" {
				t.Fatalf("droid result: %v\n%s", err, run.stdout)
			}
			branch := r.shadowTip()
			if branch == "" {
				t.Fatalf("no shadow branch after the turn; entire's log:\n%s", e2etest.LogText(r.dir))
			}
			steps := r.stepSummaries(res.SessionID)
			if len(steps) != 1 || steps[0][1] != final {
				t.Errorf("turn checkpoint summaries %q, want the final answer", steps)
			}
			log := e2etest.LogText(r.dir)
			for _, verb := range []string{"session-start", "pre-tool", "stop", "session-end"} {
				if !strings.Contains(log, `"hook":"`+verb+`","session_id":"`+res.SessionID+`","duration_ms"`) {
					t.Errorf("no %s hook completed for the session", verb)
				}
			}
			if strings.Contains(log, `"success":false`) {
				t.Errorf("a hook failed:\n%s", log)
			}
			r.commitAll("Scripted droid turn")
			out, _ := r.entire("explain", "--commit", "HEAD")
			for _, want := range []string{"SCRIPT:dt do the scripted turn", "hello.txt", "Tokens: not recorded"} {
				if !strings.Contains(out, want) {
					t.Errorf("explain --commit HEAD lacks %q:\n%s", want, out)
				}
			}
			r.recordHookTimes()
		})
	}
}
