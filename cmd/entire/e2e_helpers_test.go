package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// Helpers shared by the end-to-end scenarios: they drive the built binary
// the way Claude Code, Gemini CLI and git do, and read back what entire
// stored with plain git commands.

// withSession returns a second Claude Code session on the same repository,
// with its own transcript file.
func (r *sessionRepo) withSession(id string) *sessionRepo {
	c := *r
	c.sessionID = id
	c.transcript = filepath.Join(filepath.Dir(r.transcript), id+".jsonl")
	c.turn = 0
	return &c
}

// hookIn runs a Claude Code hook with the working directory dir and returns
// its output and exit code without judging them. Fields the payload already
// has are kept.
func (r *sessionRepo) hookIn(dir, verb string, payload map[string]any) (string, string, int) {
	r.t.Helper()
	setDefault(payload, "session_id", r.sessionID)
	setDefault(payload, "transcript_path", r.transcript)
	setDefault(payload, "cwd", dir)
	b, _ := json.Marshal(payload)
	return runEntire(r.t, dir, r.env, string(b), "hooks", "claude-code", verb)
}

// mustHookIn is hookIn that fails the test on a non-zero exit.
func (r *sessionRepo) mustHookIn(dir, verb string, payload map[string]any) string {
	r.t.Helper()
	out, errOut, code := r.hookIn(dir, verb, payload)
	if code != 0 {
		r.t.Fatalf("hook %s (session %s) exit %d: %s%s", verb, r.sessionID, code, out, errOut)
	}
	return errOut
}

func setDefault(m map[string]any, k string, v any) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

// startTurn is UserPromptSubmit plus the prompt's transcript line.
func (r *sessionRepo) startTurn(dir, prompt string) {
	r.t.Helper()
	r.turn++
	r.mustHookIn(dir, "user-prompt-submit", map[string]any{"prompt": prompt})
	r.appendTranscript(map[string]any{"type": "user", "uuid": fmt.Sprintf("%s-u%d", r.sessionID, r.turn), "message": map[string]any{"role": "user", "content": prompt}})
}

// writeFiles writes files (paths relative to the repository root) as the
// agent's Write tool does, and records the tool calls (absolute paths) in
// the transcript. Files are written in sorted order.
func (r *sessionRepo) writeFiles(files map[string]string) {
	r.t.Helper()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, path := range paths {
		gittest.WriteFile(r.t, r.dir, path, files[path])
		id := fmt.Sprintf("%s_%d_%s", r.sessionID, r.turn, strings.ReplaceAll(path, "/", "_"))
		r.appendTranscript(map[string]any{"type": "assistant", "uuid": "a-" + id, "message": map[string]any{
			"id": "msg_" + id, "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": "Write", "input": map[string]any{"file_path": filepath.Join(r.dir, path), "content": files[path]}}},
			"usage":   map[string]any{"input_tokens": 10, "output_tokens": 5},
		}})
	}
}

// endTurn appends the final answer, then runs the Stop hook from dir with
// it as last_assistant_message, as Claude Code 2.1 does (no hook_progress
// line; see TestE2EStopOlderClient for that).
func (r *sessionRepo) endTurn(dir, answer string) string {
	r.t.Helper()
	r.appendTranscript(map[string]any{"type": "assistant", "uuid": fmt.Sprintf("%s-done%d", r.sessionID, r.turn), "message": map[string]any{"id": fmt.Sprintf("msg_%s_done_%d", r.sessionID, r.turn), "role": "assistant", "content": []any{map[string]any{"type": "text", "text": answer}}}})
	return r.mustHookIn(dir, "stop", map[string]any{"hook_event_name": "Stop", "last_assistant_message": answer})
}

// turnWith plays one whole agent turn from the repository root: the
// prompt, the files the agent's Write tool writes, shell (the agent's Bash
// tool; nil for none) and the Stop hook with the final answer as Claude
// Code 2.1 sends it. It returns the Stop hook's stderr. Every e2e turn goes
// through it, so a change of the client's protocol is made once.
func (r *sessionRepo) turnWith(prompt string, files map[string]string, shell func()) string {
	r.t.Helper()
	r.startTurn(r.dir, prompt)
	r.writeFiles(files)
	if shell != nil {
		shell()
	}
	return r.endTurn(r.dir, "Done with "+prompt)
}

// playTurn is turnWith without shell commands.
func (r *sessionRepo) playTurn(prompt string, files map[string]string) {
	r.t.Helper()
	r.turnWith(prompt, files, nil)
}

// agentTurn is turnWith without shell commands, returning the Stop hook's
// stderr.
func (r *sessionRepo) agentTurn(prompt string, files map[string]string) string {
	r.t.Helper()
	return r.turnWith(prompt, files, nil)
}

// gitIn runs git with the installed hooks (the built binary on PATH) in dir
// and returns its combined output and error.
func (r *sessionRepo) gitIn(dir string, extraEnv []string, args ...string) (string, error) {
	r.t.Helper()
	cmd := gitCmd(r.t, r, args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, extraEnv...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mustGit is gitIn from the root that fails the test when git fails.
func (r *sessionRepo) mustGit(args ...string) string {
	r.t.Helper()
	out, err := r.gitIn(r.dir, nil, args...)
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

var trailerRe = regexp.MustCompile(`(?m)^Entire-Checkpoint: ([0-9a-f]{12})$`)

// checkpointAt returns the Entire-Checkpoint trailer of a commit ("" when
// none).
func checkpointAt(t *testing.T, dir, rev string) string {
	t.Helper()
	m := trailerRe.FindAllStringSubmatch(gittest.Git(t, dir, "log", "-1", "--format=%B", rev), -1)
	if len(m) > 1 {
		t.Fatalf("commit %s has %d trailers", rev, len(m))
	}
	if len(m) == 0 {
		return ""
	}
	return m[0][1]
}

// cpPath is the metadata-branch path of a checkpoint file.
func cpPath(id, rel string) string {
	return "entire/checkpoints/v1:" + id[:2] + "/" + id[2:] + "/" + rel
}

// showJSON reads a JSON file of a git tree.
func showJSON(t *testing.T, dir, spec string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(gittest.Git(t, dir, "show", spec)), &m); err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return m
}

// shadowBranches lists the shadow branches (all entire/* but the metadata
// branch).
func shadowBranches(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, b := range strings.Fields(gittest.Git(t, dir, "branch", "--list", "entire/*", "--format=%(refname:short)")) {
		if b != "entire/checkpoints/v1" {
			out = append(out, b)
		}
	}
	return out
}

// sessionState reads a session's state file from the common git dir.
func sessionState(t *testing.T, dir, id string) map[string]any {
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

var metadataSubjectRe = regexp.MustCompile(`^(Checkpoint: [0-9a-f]{12}|Finalize transcript for Checkpoint: [0-9a-f]{12}|Initialize (metadata|sessions) branch)$`)

// assertStoreClean checks what every scenario must leave: `git fsck
// --strict` clean, and a metadata branch whose plain `git log` shows only
// known subjects, the given checkpoints among them as `Checkpoint: <id>`.
func assertStoreClean(t *testing.T, dir string, ids ...string) {
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

// logText returns entire's log file of a repository ("" when absent).
func logText(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, ".entire", "logs", "entire.log"))
	return string(b)
}

// awaitPushAfter waits until the background push that a first push to an
// empty remote started (`entire hooks push-after`) has run in dir: the
// session data is on the remote then, and nothing writes into the test's
// directories any more.
func awaitPushAfter(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(logText(dir), "push-after: finished") {
		if time.Now().After(deadline) {
			t.Fatalf("the background push of the session data did not finish; log:\n%s", logText(dir))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
