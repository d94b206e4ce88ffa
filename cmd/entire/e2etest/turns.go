package e2etest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// StartTurnDisabled plays a turn's hooks against a disabled repository.
func (r *SessionRepo) StartTurnDisabled(t *testing.T) {
	t.Helper()
	for _, verb := range []string{"session-start", "user-prompt-submit", "stop"} {
		out, errOut, code := r.HookIn(r.Dir, verb, map[string]any{"prompt": "ignored"})
		if code != 0 || out != "" || errOut != "" {
			t.Errorf("disabled claude %s: %d %q %q", verb, code, out, errOut)
		}
	}
	for _, verb := range []string{"session-start", "before-agent", "after-agent"} {
		out, _, code := RunEntire(t, r.Dir, r.Env, `{"session_id":"g1","transcript_path":"/nonexistent"}`, "hooks", "gemini", verb)
		if code != 0 || strings.TrimSpace(out) != "{}" {
			t.Errorf("disabled gemini %s: %d %q", verb, code, out)
		}
	}
}

// SwitchSession makes the following hooks those of another session with
// its own transcript.
func (r *SessionRepo) SwitchSession(id string) {
	r.SessionID = id
	r.Transcript = filepath.Join(filepath.Dir(r.Transcript), id+".jsonl")
}

// WithSession returns a second Claude Code session on the same repository,
// with its own transcript file.
func (r *SessionRepo) WithSession(id string) *SessionRepo {
	c := *r
	c.SessionID = id
	c.Transcript = filepath.Join(filepath.Dir(r.Transcript), id+".jsonl")
	c.Turn = 0
	return &c
}

// HookIn runs a Claude Code hook with the working directory dir and returns
// its output and exit code without judging them. Fields the payload already
// has are kept.
func (r *SessionRepo) HookIn(dir, verb string, payload map[string]any) (string, string, int) {
	r.T.Helper()
	setDefault(payload, "session_id", r.SessionID)
	setDefault(payload, "transcript_path", r.Transcript)
	setDefault(payload, "cwd", dir)
	b, _ := json.Marshal(payload)
	return RunEntire(r.T, dir, r.Env, string(b), "hooks", "claude-code", verb)
}

// MustHookIn is hookIn that fails the test on a non-zero exit.
func (r *SessionRepo) MustHookIn(dir, verb string, payload map[string]any) string {
	r.T.Helper()
	out, errOut, code := r.HookIn(dir, verb, payload)
	if code != 0 {
		r.T.Fatalf("hook %s (session %s) exit %d: %s%s", verb, r.SessionID, code, out, errOut)
	}
	return errOut
}

// StartTurn is UserPromptSubmit plus the prompt's transcript line.
func (r *SessionRepo) StartTurn(dir, prompt string) {
	r.T.Helper()
	r.Turn++
	r.MustHookIn(dir, "user-prompt-submit", map[string]any{"prompt": prompt})
	r.AppendTranscript(map[string]any{"type": "user", "uuid": fmt.Sprintf("%s-u%d", r.SessionID, r.Turn), "message": map[string]any{"role": "user", "content": prompt}})
}

// WriteFiles writes files (paths relative to the repository root) as the
// agent's Write tool does, and records the tool calls (absolute paths) in
// the transcript. Files are written in sorted order.
func (r *SessionRepo) WriteFiles(files map[string]string) {
	r.T.Helper()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, path := range paths {
		gittest.WriteFile(r.T, r.Dir, path, files[path])
		id := fmt.Sprintf("%s_%d_%s", r.SessionID, r.Turn, strings.ReplaceAll(path, "/", "_"))
		r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "a-" + id, "message": map[string]any{
			"id": "msg_" + id, "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": "Write", "input": map[string]any{"file_path": filepath.Join(r.Dir, path), "content": files[path]}}},
			"usage":   map[string]any{"input_tokens": 10, "output_tokens": 5},
		}})
	}
}

// EndTurn appends the final answer, then runs the Stop hook from dir with
// it as last_assistant_message, as Claude Code 2.1 does (no hook_progress
// line; see TestE2EStopOlderClient for that).
func (r *SessionRepo) EndTurn(dir, answer string) string {
	r.T.Helper()
	r.AppendTranscript(map[string]any{"type": "assistant", "uuid": fmt.Sprintf("%s-done%d", r.SessionID, r.Turn), "message": map[string]any{"id": fmt.Sprintf("msg_%s_done_%d", r.SessionID, r.Turn), "role": "assistant", "content": []any{map[string]any{"type": "text", "text": answer}}}})
	return r.MustHookIn(dir, "stop", map[string]any{"hook_event_name": "Stop", "last_assistant_message": answer})
}

// TurnWith plays one whole agent turn from the repository root: the
// prompt, the files the agent's Write tool writes, shell (the agent's Bash
// tool; nil for none) and the Stop hook with the final answer as Claude
// Code 2.1 sends it. It returns the Stop hook's stderr. Every e2e turn goes
// through it, so a change of the client's protocol is made once.
func (r *SessionRepo) TurnWith(prompt string, files map[string]string, shell func()) string {
	r.T.Helper()
	r.StartTurn(r.Dir, prompt)
	r.WriteFiles(files)
	if shell != nil {
		shell()
	}
	return r.EndTurn(r.Dir, "Done with "+prompt)
}

// PlayTurn is turnWith without shell commands.
func (r *SessionRepo) PlayTurn(prompt string, files map[string]string) {
	r.T.Helper()
	r.TurnWith(prompt, files, nil)
}

// AgentTurn is turnWith without shell commands, returning the Stop hook's
// stderr.
func (r *SessionRepo) AgentTurn(prompt string, files map[string]string) string {
	r.T.Helper()
	return r.TurnWith(prompt, files, nil)
}

// CheckpointAt returns the Entire-Checkpoint trailer of a commit ("" when
// none).
func CheckpointAt(t *testing.T, dir, rev string) string {
	t.Helper()
	m := TrailerRe.FindAllStringSubmatch(gittest.Git(t, dir, "log", "-1", "--format=%B", rev), -1)
	if len(m) > 1 {
		t.Fatalf("commit %s has %d trailers", rev, len(m))
	}
	if len(m) == 0 {
		return ""
	}
	return m[0][1]
}

// ShowJSON reads a JSON file of a git tree.
func ShowJSON(t *testing.T, dir, spec string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(gittest.Git(t, dir, "show", spec)), &m); err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return m
}

// SessionState reads a session's state file from the common git dir.
func SessionState(t *testing.T, dir, id string) map[string]any {
	t.Helper()
	common := GitCommonDir(t, dir)
	b, err := os.ReadFile(filepath.Join(common, "entire-sessions", id+".json"))
	if err != nil {
		t.Fatalf("session state %s: %v", id, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("session state %s: %v", id, err)
	}
	return m
}

// AssertStoreClean checks what every scenario must leave: `git fsck
// --strict` clean, and a metadata branch whose plain `git log` shows only
// known subjects, the given checkpoints among them as `Checkpoint: <id>`.
func AssertStoreClean(t *testing.T, dir string, ids ...string) {
	t.Helper()
	gittest.Fsck(t, dir)
	subjects := strings.Split(gittest.Git(t, dir, "log", "--format=%s", "entire/checkpoints/v1"), "\n")
	for _, s := range subjects {
		if !metadataSubjectRe.MatchString(s) {
			t.Errorf("unexpected metadata commit subject %q", s)
		}
	}
	for _, id := range ids {
		if !slices.Contains(subjects, "Checkpoint: "+id) {
			t.Errorf("git log entire/checkpoints/v1 has no \"Checkpoint: %s\":\n%s", id, strings.Join(subjects, "\n"))
		}
	}
}

// LogText returns entire's log file of a repository ("" when absent).
func LogText(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, ".entire", "logs", "entire.log"))
	return string(b)
}

// PlantConclusion plays a subagent of the open turn (Agent tool, the
// subagent's own transcript, SubagentStop and PostToolUse) whose final
// message says text and ends with a conclusion block that repeats it.
func (r *SessionRepo) PlantConclusion(text string) {
	r.T.Helper()
	final := text + "\n\n<entire:conclusion>\nstatus: success\nsummary: |\n  " + text + "\nconfidence: 0.9\n</entire:conclusion>"
	input := map[string]any{"description": "Deploy", "prompt": "deploy it", "subagent_type": "general-purpose"}
	r.Hook("pre-task", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_use_id": "toolu_leaks_agent", "tool_input": input})
	r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "leaks-agent", "message": map[string]any{"id": "msg_leaks_agent", "role": "assistant",
		"content": []any{map[string]any{"type": "tool_use", "id": "toolu_leaks_agent", "name": "Agent", "input": input}}}})
	subPath := filepath.Join(strings.TrimSuffix(r.Transcript, ".jsonl"), "subagents", "agent-d3p10y.jsonl")
	if err := os.MkdirAll(filepath.Dir(subPath), 0o750); err != nil {
		r.T.Fatal(err)
	}
	line, _ := json.Marshal(map[string]any{"type": "assistant", "uuid": "sub-final", "message": map[string]any{"id": "msg_sub_final", "role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": final}}}})
	if err := os.WriteFile(subPath, append(line, '\n'), 0o600); err != nil {
		r.T.Fatal(err)
	}
	r.Hook("subagent-stop", map[string]any{"hook_event_name": "SubagentStop", "agent_id": "d3p10y", "agent_type": "general-purpose", "agent_transcript_path": subPath})
	r.AppendTranscript(map[string]any{"type": "user", "uuid": "leaks-agent-result", "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_leaks_agent", "content": []any{map[string]any{"type": "text", "text": final}}}}}})
	r.Hook("post-task", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Agent", "tool_use_id": "toolu_leaks_agent", "tool_input": input,
		"tool_response": map[string]any{"status": "completed", "agentId": "d3p10y", "content": []any{map[string]any{"type": "text", "text": final}}}})
}

func setDefault(m map[string]any, k string, v any) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

// CommittedSession plays two turns on a feature branch and commits them; it
// returns the repository and the checkpoint ID of the commit.
func CommittedSession(t *testing.T) (*SessionRepo, string) {
	t.Helper()
	r := NewSessionRepo(t)
	gittest.Git(t, r.Dir, "checkout", "-q", "-b", "feature")
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.AgentTurn("Please add a greeting", map[string]string{"hello.txt": "hello\n"})
	r.AgentTurn("Add a farewell too", map[string]string{"bye.txt": "bye\n"})
	gittest.Git(t, r.Dir, "add", "hello.txt", "bye.txt")
	if out, err := GitCmd(t, r, "commit", "-q", "-m", "Add greeting and farewell").CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	id := TrailerID(t, r.Dir, "HEAD")
	return r, id
}

// BigOutput is a 50 KB tool output with a findable line near its end.
func BigOutput() string {
	var b strings.Builder
	for i := 0; b.Len() < 50_000; i++ {
		fmt.Fprintf(&b, "row %05d: some build log output that goes on and on\n", i)
	}
	b.WriteString("FINAL-NEEDLE at the end\n")
	return b.String()
}

// SubagentFinal is a subagent's last message that ends with a conclusion
// block.
const SubagentFinal = "I documented the project layout in docs/layout.md.\n\n" +
	"<entire:conclusion>\nstatus: success\nsummary: |\n  Documented the layout of the project.\nartifacts:\n  - docs/layout.md\n  - docs/gone.md\nmemory_refs:\n  - proj-layout\nconfidence: 0.9\n</entire:conclusion>"

// Announced is what a command run by the agent printed to announce the
// entities it touched (render references): a note that exists, a
// checkpoint that does not, and an undo point whose preview carries markup.
const Announced = `::entire-ref/v1::{"v":1,"type":"note","id":"build-cmd","intent":"referenced"}
::entire-ref/v1::{"v":1,"type":"checkpoint","id":"0123456789ab","intent":"referenced"}
::entire-ref/v1::{"v":1,"type":"undo_point","id":"u-1","intent":"created","preview":{"title":"<i>before</i> the rewind"}}`

// Hook runs Claude Code hook verb of the session with payload (its
// session fields filled in) and returns its stdout and stderr; a non-zero
// exit fails the test.
func (r *SessionRepo) Hook(verb string, payload map[string]any) (string, string) {
	r.T.Helper()
	payload["session_id"] = r.SessionID
	payload["transcript_path"] = r.Transcript
	payload["cwd"] = r.Dir
	b, _ := json.Marshal(payload)
	out, errOut, code := RunEntire(r.T, r.Dir, r.Env, string(b), "hooks", "claude-code", verb)
	if code != 0 {
		r.T.Fatalf("hook %s exit %d: %s", verb, code, errOut)
	}
	return out, errOut
}

// AppendTranscript appends lines to the session's transcript as Claude
// Code writes it, one JSON object per line.
func (r *SessionRepo) AppendTranscript(lines ...map[string]any) {
	r.T.Helper()
	f, err := os.OpenFile(r.Transcript, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		r.T.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		l["timestamp"] = time.Now().UTC().Format(time.RFC3339Nano)
		b, _ := json.Marshal(l)
		f.Write(append(b, '\n'))
	}
}
