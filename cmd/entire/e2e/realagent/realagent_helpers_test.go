//go:build realagent

package realagent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/cmd/entire/e2etest/realagent"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// liveAgent is one real client and how a script talks to it.
type liveAgent struct {
	name   string // "claude" or "gemini"
	flag   string // entire enable --agent
	bin    string
	gemini bool
}

func claudeAgent(t *testing.T) liveAgent {
	return liveAgent{name: "claude", flag: "claude-code", bin: realagent.Binary(t, realagent.ClaudeCode)}
}

func geminiAgent(t *testing.T) liveAgent {
	return liveAgent{name: "gemini", flag: "gemini", bin: realagent.Binary(t, realagent.GeminiCLI), gemini: true}
}

// forBothAgents runs fn as a parallel subtest for each client.
func forBothAgents(t *testing.T, fn func(t *testing.T, ag liveAgent)) {
	t.Helper()
	for _, c := range []struct {
		name string
		mk   func(*testing.T) liveAgent
	}{{"claude", claudeAgent}, {"gemini", geminiAgent}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fn(t, c.mk(t))
		})
	}
}

// The tools a script calls, in each client's own names.

func (a liveAgent) write(path, content string) realagent.ToolCall {
	if a.gemini {
		return realagent.ToolCall{Name: "write_file", Input: map[string]any{"file_path": path, "content": content}}
	}
	return realagent.ToolCall{Name: "Write", Input: map[string]any{"file_path": path, "content": content}}
}

func (a liveAgent) edit(path, old, new string) realagent.ToolCall {
	if a.gemini {
		return realagent.ToolCall{Name: "replace", Input: map[string]any{"file_path": path, "old_string": old, "new_string": new, "instruction": "edit " + filepath.Base(path)}}
	}
	return realagent.ToolCall{Name: "Edit", Input: map[string]any{"file_path": path, "old_string": old, "new_string": new}}
}

func (a liveAgent) bash(command string) realagent.ToolCall {
	if a.gemini {
		return realagent.ToolCall{Name: "run_shell_command", Input: map[string]any{"command": command, "description": "run " + command}}
	}
	return realagent.ToolCall{Name: "Bash", Input: map[string]any{"command": command, "description": "run " + command}}
}

// delegate starts a subagent whose prompt carries its own script marker.
func (a liveAgent) delegate(description, prompt string) realagent.ToolCall {
	if a.gemini {
		return realagent.ToolCall{Name: "invoke_agent", Input: map[string]any{"agent_name": "generalist", "prompt": prompt}}
	}
	return realagent.ToolCall{Name: "Agent", Input: map[string]any{"description": description, "prompt": prompt, "subagent_type": "general-purpose"}}
}

// finish is a subagent's last step: its answer (Claude) or complete_task
// with it as the response (Gemini, whose subagents must call it).
func (a liveAgent) finish(result string, u realagent.Usage) realagent.Step {
	if a.gemini {
		return realagent.Step{Tools: []realagent.ToolCall{{Name: "complete_task", Input: map[string]any{"result": map[string]any{"response": result}}}}, Usage: u}
	}
	return realagent.Step{Text: result, Usage: u}
}

// mcp calls a tool of the entire MCP server.
func (a liveAgent) mcp(tool string, input map[string]any) realagent.ToolCall {
	if a.gemini {
		return realagent.ToolCall{Name: "mcp_entire_" + tool, Input: input}
	}
	return realagent.ToolCall{Name: "mcp__entire__" + tool, Input: input}
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

// liveRepo is a repository with entire enabled for one client, its model
// server and the client's environment.
type liveRepo struct {
	t   *testing.T
	ag  liveAgent
	dir string
	srv *realagent.Server
	env *realagent.Env
}

// newLiveRepo enables entire for ag in a new repository (one commit, then
// the enable commit) with extra enable flags.
func newLiveRepo(t *testing.T, ag liveAgent, enableFlags ...string) *liveRepo {
	t.Helper()
	dir := gittest.InitWithCommit(t)
	r := &liveRepo{t: t, ag: ag, dir: dir}
	r.srv = realagent.NewServer(t, nil)
	r.env = realagent.NewEnv(t, r.srv, e2etest.ProgramEnv(t), dir)
	t.Cleanup(func() { e2etest.AwaitFinishers(t, dir) })
	r.entire(append([]string{"enable", "--agent", ag.flag}, enableFlags...)...)
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "enable entire")
	return r
}

// entire runs the built binary as the user would in the repository, with
// the client's HOME; it fails the test on a non-zero exit.
func (r *liveRepo) entire(args ...string) (stdout, stderr string) {
	r.t.Helper()
	out, errOut, code := r.entireIn(r.dir, args...)
	if code != 0 {
		r.t.Fatalf("entire %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out, errOut
}

func (r *liveRepo) entireIn(dir string, args ...string) (string, string, int) {
	r.t.Helper()
	return e2etest.RunEntire(r.t, dir, append(r.env.Vars, "ENTIRE_TEST_TTY=0"), "", args...)
}

// git runs git with the installed hooks (entire on PATH) in the repository.
func (r *liveRepo) git(args ...string) string {
	r.t.Helper()
	return gitWithEnv(r.t, r.dir, r.env.Vars, args...)
}

func gitWithEnv(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(env, "ENTIRE_TEST_TTY=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

// liveRun is what one client run did.
type liveRun struct {
	sessionID string
	answer    string // the final result text
	stdout    string
	stderr    string
}

// prompt runs the client once, non-interactively, on a prompt that starts
// with the script's marker, in dir ("" for the repository root). It fails
// the test when the client exits non-zero or reports a failed hook.
func (r *liveRepo) prompt(script, text string, extra ...string) liveRun {
	r.t.Helper()
	return r.promptIn(r.dir, script, text, extra...)
}

func (r *liveRepo) promptIn(dir, script, text string, extra ...string) liveRun {
	r.t.Helper()
	p := "SCRIPT:" + script + " " + text
	var args []string
	if r.ag.gemini {
		args = append([]string{"-p", p, "--yolo", "--output-format", "stream-json", "--debug"}, extra...)
	} else {
		args = append([]string{"-p", p, "--dangerously-skip-permissions", "--output-format", "stream-json", "--verbose", "--include-hook-events"}, extra...)
	}
	res := realagent.Run(r.t, r.env, dir, r.ag.bin, args...)
	run := liveRun{stdout: res.Stdout, stderr: res.Stderr}
	if res.ExitCode != 0 {
		r.t.Fatalf("%s exit %d after %s\nstdout:\n%s\nstderr:\n%s", r.ag.name, res.ExitCode, res.Elapsed, tailString(res.Stdout), tailString(res.Stderr))
	}
	r.checkRun(&run)
	// A turn end may be finishing in the background (Claude Code writes
	// the turn's last line after calling Stop).
	e2etest.AwaitFinishers(r.t, dir)
	r.t.Logf("%s %q: %s, session %s", r.ag.name, p, res.Elapsed.Round(time.Millisecond), run.sessionID)
	return run
}

func tailString(s string) string {
	if len(s) > 6000 {
		return "…" + s[len(s)-6000:]
	}
	return s
}

// geminiHookLine is Gemini CLI's --debug report of a hook event.
var geminiHookLine = regexp.MustCompile(`Hook execution for (\w+): (.*)`)

var geminiHookOK = regexp.MustCompile(`^\d+ hooks executed successfully, total duration: (\d+)ms`)

// settingsComplaint is how the clients report a settings file they reject.
var settingsComplaint = regexp.MustCompile(`(?i)(invalid|error|failed)[^\n]*(settings|hooks? config)|(settings|hooks? config)[^\n]*(invalid|error|failed to (load|parse))`)

// checkRun reads a run's output: the session ID, the answer, and every
// hook's outcome; a hook that did not exit 0 and succeed, or a complaint
// about a settings file, fails the test. Gemini's hook times (from --debug)
// are recorded.
func (r *liveRepo) checkRun(run *liveRun) {
	r.t.Helper()
	if m := settingsComplaint.FindString(run.stderr); m != "" {
		r.t.Errorf("%s complains about a settings file: %s", r.ag.name, m)
	}
	sc := bufio.NewScanner(strings.NewReader(run.stdout))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev struct {
			Type      string `json:"type"`
			Subtype   string `json:"subtype"`
			SessionID string `json:"session_id"`
			HookName  string `json:"hook_name"`
			ExitCode  *int   `json:"exit_code"`
			Outcome   string `json:"outcome"`
			Stderr    string `json:"stderr"`
			Result    string `json:"result"`
			Role      string `json:"role"`
			Content   string `json:"content"`
			Status    string `json:"status"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if run.sessionID == "" && ev.SessionID != "" {
			run.sessionID = ev.SessionID
		}
		switch {
		case ev.Type == "system" && ev.Subtype == "hook_response":
			if ev.ExitCode == nil || *ev.ExitCode != 0 || ev.Outcome != "success" {
				r.t.Errorf("claude hook %s: exit %v, outcome %q, stderr %q", ev.HookName, ev.ExitCode, ev.Outcome, ev.Stderr)
			}
		case ev.Type == "result" && !r.ag.gemini:
			run.answer = ev.Result
		case ev.Type == "message" && ev.Role == "assistant":
			run.answer += ev.Content
		case ev.Type == "result" && ev.Status != "" && ev.Status != "success":
			r.t.Errorf("gemini result status %q", ev.Status)
		}
	}
	if !r.ag.gemini {
		return
	}
	for _, m := range geminiHookLine.FindAllStringSubmatch(run.stderr, -1) {
		ok := geminiHookOK.FindStringSubmatch(m[2])
		if ok == nil {
			r.t.Errorf("gemini hook %s: %s", m[1], m[2])
			continue
		}
		var ms int
		fmt.Sscan(ok[1], &ms)
		hookTimes.add(r.ag.name, m[1], ms)
	}
}

// claudeHookTimes records the hook times Claude Code wrote in the
// transcripts under the client's HOME (hook_success attachments).
func (r *liveRepo) claudeHookTimes() {
	r.t.Helper()
	files, _ := filepath.Glob(filepath.Join(r.env.Home, ".claude", "projects", "*", "*.jsonl"))
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
					ExitCode   int    `json:"exitCode"`
				} `json:"attachment"`
			}
			if json.Unmarshal([]byte(line), &e) == nil && e.Attachment.Type == "hook_success" {
				hookTimes.add("claude", e.Attachment.HookEvent, e.Attachment.DurationMs)
			}
		}
	}
}

// hookTimes collects the hook wall times the clients reported, by client
// and event, over the whole tier (test-only state).
var hookTimes = &hookTimeLog{ms: map[string][]int{}}

type hookTimeLog struct {
	mu sync.Mutex
	ms map[string][]int
}

func (h *hookTimeLog) add(client, event string, ms int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := client + " " + event
	h.ms[k] = append(h.ms[k], ms)
}

// mark returns how many times each key holds, for medianSince.
func (h *hookTimeLog) mark() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := make(map[string]int, len(h.ms))
	for k, v := range h.ms {
		m[k] = len(v)
	}
	return m
}

// medianSince returns the median of the times of key added after mark.
func (h *hookTimeLog) medianSince(mark map[string]int, key string) (int, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := append([]int(nil), h.ms[key][mark[key]:]...)
	if len(v) == 0 {
		return 0, false
	}
	sort.Ints(v)
	return v[len(v)/2], true
}

// summary returns "<client> <event>: n=…, median …ms, max …ms" lines and
// the median of each key.
func (h *hookTimeLog) summary() (string, map[string]int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	keys := make([]string, 0, len(h.ms))
	for k := range h.ms {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	medians := map[string]int{}
	var b strings.Builder
	for _, k := range keys {
		v := append([]int(nil), h.ms[k]...)
		sort.Ints(v)
		medians[k] = v[len(v)/2]
		fmt.Fprintf(&b, "  %-28s n=%-3d median %4dms  max %4dms\n", k, len(v), medians[k], v[len(v)-1])
	}
	return b.String(), medians
}

// transcriptOf returns the path of a client's transcript of a session
// under HOME. Gemini CLI names a chat file by the minute it was opened: a
// session resumed in a later minute has two files, and the newest one is
// the one the client writes.
func (r *liveRepo) transcriptOf(sessionID string) string {
	r.t.Helper()
	pattern := filepath.Join(r.env.Home, ".claude", "projects", "*", sessionID+".jsonl")
	if r.ag.gemini {
		pattern = filepath.Join(r.env.Home, ".gemini", "tmp", "*", "chats", "session-*-"+sessionID[:8]+".jsonl")
	}
	m, _ := filepath.Glob(pattern)
	if len(m) == 0 || len(m) > 1 && !r.ag.gemini {
		r.t.Fatalf("transcript of %s: %v", sessionID, m)
	}
	if len(m) > 1 {
		r.t.Logf("session %s has %d chat files %v: the newest is its transcript", sessionID, len(m), m)
	}
	newest, newestTime := m[0], time.Time{}
	for _, p := range m {
		if fi, err := os.Stat(p); err == nil && fi.ModTime().After(newestTime) {
			newest, newestTime = p, fi.ModTime()
		}
	}
	return newest
}

// shadowTip returns the shadow branch of the repository's HEAD ("" when
// none).
func (r *liveRepo) shadowTip() string {
	r.t.Helper()
	out := gittest.Git(r.t, r.dir, "for-each-ref", "--format=%(refname:short)", "refs/heads/entire/")
	for _, b := range strings.Fields(out) {
		if b != "entire/checkpoints/v1" {
			return b
		}
	}
	return ""
}
