package e2etest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

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

// GitIn runs git with the installed hooks (the built binary on PATH) in dir
// and returns its combined output and error.
func (r *SessionRepo) GitIn(dir string, extraEnv []string, args ...string) (string, error) {
	r.T.Helper()
	cmd := GitCmd(r.T, r, args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, extraEnv...)
	out, err := cmd.CombinedOutput()
	if len(args) > 0 && args[0] == "push" {
		// What the test looks at next is the push's whole result,
		// session data a background push sends included.
		AwaitBackground(r.T)
	}
	return string(out), err
}

// MustGit is gitIn from the root that fails the test when git fails.
func (r *SessionRepo) MustGit(args ...string) string {
	r.T.Helper()
	out, err := r.GitIn(r.Dir, nil, args...)
	if err != nil {
		r.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

var TrailerRe = regexp.MustCompile(`(?m)^Entire-Checkpoint: ([0-9a-f]{12})$`)

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

// CpPath is the metadata-branch path of a checkpoint file.
func CpPath(id, rel string) string {
	return "entire/checkpoints/v1:" + id[:2] + "/" + id[2:] + "/" + rel
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

// ShadowBranches lists the shadow branches (all entire/* but the metadata
// branch).
func ShadowBranches(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, b := range strings.Fields(gittest.Git(t, dir, "branch", "--list", "entire/*", "--format=%(refname:short)")) {
		if b != "entire/checkpoints/v1" {
			out = append(out, b)
		}
	}
	return out
}

// SessionState reads a session's state file from the common git dir.
func SessionState(t *testing.T, dir, id string) map[string]any {
	t.Helper()
	common := gittest.Git(t, dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
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
