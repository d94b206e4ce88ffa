//go:build realagent

package realagent

import (
	"encoding/json"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest/realagent"
)

// client is one real agent client as the scenarios drive it: how it is
// started, the names of its tools, and how it reports what it did. Each
// client is a file of its own (claude_test.go, gemini_test.go); the
// scenarios (scenarios_test.go) speak only through this.
type client interface {
	// name is the subtest name: the client, and @version for the newest.
	name() string
	// agentFlag is entire enable's --agent value.
	agentFlag() string
	// binary is the installed client.
	binary() string

	// The tools a script calls, in the client's own names.
	write(path, content string) realagent.ToolCall
	edit(path, old, new string) realagent.ToolCall
	bash(command string) realagent.ToolCall
	// delegate starts a subagent whose prompt carries its own script
	// marker.
	delegate(description, prompt string) realagent.ToolCall
	// mcp calls a tool of the entire MCP server.
	mcp(tool string, input map[string]any) realagent.ToolCall
	// finish is a subagent's last step with result as its answer.
	finish(result string, u realagent.Usage) realagent.Step
	// taskSteps are steps that create and complete a task in the client's
	// task list (nil when the client has none), usage n and n+1; the
	// calls are optional, left out by a version that offers no task list.
	taskSteps(n int, subject string) []realagent.Step
	// subagentResult is what the scenario's subagent answers and what
	// `entire explain` then shows as its task's result.
	subagentResult() (answer, shown string)
	// shellRunsGitHooks reports whether git run by the client's shell
	// tool runs the repository's hooks (Gemini CLI 0.61 sets
	// core.hooksPath to "" for every shell command).
	shellRunsGitHooks() bool
	// asksConclusion reports whether entire's SubagentStart hook asks the
	// client's subagents for a conclusion block the parent receives.
	asksConclusion() bool

	// promptArgs are the arguments of a non-interactive run on prompt,
	// resumeArgs of one that resumes session sessionID, latestArgs of
	// one that continues the latest session.
	promptArgs(prompt string) []string
	resumeArgs(prompt, sessionID string) []string
	latestArgs(prompt string) []string
	// subagents, hides and mcpNotes report whether the client can
	// delegate to a subagent, lets a hook replace what the model sees of
	// a tool's output (hides), and starts entire's MCP server (notes);
	// the scenarios on them skip a client without, as its AGENT.md says.
	subagents() bool
	hides() bool
	mcpNotes() bool
	// untrustedArgs are the arguments of a run that does not trust the
	// project's hooks (without the tier's trust flag), nil for a client
	// without a trust gate in entire's setup (agent.EnableSpec.Trust).
	untrustedArgs(prompt string) []string
	// tokenKind is the kind of the agent-loop requests the server
	// counts; cacheWrites whether the client reports cache writes.
	tokenKind() realagent.Kind
	cacheWrites() bool
	// turnEndEvent is the hook event that ends a turn, startEvent the one
	// that starts a session.
	turnEndEvent() string
	startEvent() string

	// observe reads one stream-json event of a run's stdout.
	observe(t *testing.T, ev streamEvent, run *liveRun)
	// afterRun reads what else a run printed (hook reports on stderr).
	afterRun(t *testing.T, run *liveRun)
	// recordHookTimes adds the hook times the client kept under home (or
	// entire's log in the repository dir, for a client that keeps none).
	recordHookTimes(home, dir string)
	// transcriptGlob matches the transcript files of a session under
	// home; manyFiles reports whether one session may have several (the
	// newest is the transcript).
	transcriptGlob(home, sessionID string) string
	manyFiles() bool
}

// streamEvent is one line of a client's stream-json output, the fields
// any client uses.
type streamEvent struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	// CopilotSessionID and CopilotExitCode are Copilot CLI's result.
	CopilotSessionID string `json:"sessionId"`
	CopilotExitCode  *int   `json:"exitCode"`
	Item             struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Message string `json:"message"`
	} `json:"item"`
	Data      json.RawMessage `json:"data"`
	Subtype   string          `json:"subtype"`
	SessionID string          `json:"session_id"`
	HookName  string          `json:"hook_name"`
	ExitCode  *int            `json:"exit_code"`
	Outcome   string          `json:"outcome"`
	Stderr    string          `json:"stderr"`
	Result    string          `json:"result"`
	Role      string          `json:"role"`
	Content   string          `json:"content"`
	Status    string          `json:"status"`
	// ID and Message are Pi's: its session line's id, a message_end's
	// message.
	ID      string          `json:"id"`
	Message json.RawMessage `json:"message"`
	// OpenCodeSessionID and Part are OpenCode's: every line's session,
	// a text or tool part.
	OpenCodeSessionID string          `json:"sessionID"`
	Part              json.RawMessage `json:"part"`
}

// families are the tier's clients, each made from an installed version
// for a test (Binary skips it, or fails it under CI, when that version is
// not installed).
var families = []struct {
	name string
	make func(*testing.T, realagent.Installed) client
}{
	{realagent.ClaudeCode, newClaude},
	{realagent.GeminiCLI, newGemini},
	{realagent.Codex, newCodex},
	{realagent.Copilot, newCopilot},
	{realagent.OpenCode, newOpenCode},
	{realagent.Pi, newPi},
}

// forEachClient runs fn as a parallel subtest for the pinned version of
// each client: the whole scenario list runs there.
func forEachClient(t *testing.T, fn func(t *testing.T, c client)) {
	t.Helper()
	for _, f := range families {
		inst := realagent.Versions(f.name)[0]
		t.Run(inst.Label(), func(t *testing.T) {
			t.Parallel()
			fn(t, f.make(t, inst))
		})
	}
}

// forEachVersion runs fn as a parallel subtest for the pinned and the
// newest published version of each client: the core scenarios run
// against what users upgrade to every week. A newest version's subtest is
// named client@version.
func forEachVersion(t *testing.T, fn func(t *testing.T, c client)) {
	t.Helper()
	for _, f := range families {
		for _, inst := range realagent.Versions(f.name) {
			t.Run(inst.Label(), func(t *testing.T) {
				t.Parallel()
				fn(t, f.make(t, inst))
			})
		}
	}
}

// step is a tool step with usage.
func step(u realagent.Usage, tools ...realagent.ToolCall) realagent.Step {
	return realagent.Step{Tools: tools, Usage: u}
}

// usage returns distinct usage for step n of a script, so that sums tell
// which requests were counted.
func usage(n int) realagent.Usage {
	return realagent.Usage{Input: 100 + n, CacheRead: 10 + n, CacheCreation: 3 + n, Output: 20 + n}
}
