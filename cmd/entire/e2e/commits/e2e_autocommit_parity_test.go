package commits

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// realPayload returns the payload Claude Code 2.1.197 sent to verb
// (shared/fixtures/hook-payloads) without the given keys; the session
// fields are replaced by the hook helpers.
func realPayload(t *testing.T, verb string, drop ...string) map[string]any {
	t.Helper()
	for _, p := range agenttest.HookPayloads(t, "claude-code-2.1.197", "claude-code-") {
		if p.Verb != verb {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(p.Data, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range drop {
			delete(m, k)
		}
		return m
	}
	t.Fatalf("no real payload for %s", verb)
	return nil
}

// An auto-commit session counts its checkpoints in checkpoint_count (SPEC
// 2.6 stop, step 8), task checkpoints included, and `rewind --list` marks
// its task checkpoint as one, with the task's tool use ID (SPEC 6.1).
func TestAutoCommitCountsCheckpointsAndListsTasks(t *testing.T) {
	t.Parallel()
	r := e2etest.NewAutoCommitRepo(t)
	count := func(want float64) {
		t.Helper()
		if got := e2etest.SessionState(t, r.Dir, "sess-1")["checkpoint_count"]; got != want {
			t.Errorf("checkpoint_count %v, want %v", got, want)
		}
	}
	r.AgentTurn("Add a", map[string]string{"a.txt": "a\n"})
	count(1)

	// A turn that delegates to a subagent, with the real client's payloads.
	r.Turn++
	r.Hook("user-prompt-submit", map[string]any{"prompt": "Delegate the sub file"})
	r.AppendTranscript(map[string]any{"type": "user", "uuid": "u-task", "message": map[string]any{"role": "user", "content": "Delegate the sub file"}})
	r.Hook("pre-task", realPayload(t, "pre-task"))
	gittest.WriteFile(t, r.Dir, "sub.txt", "sub\n")
	r.Hook("post-task", realPayload(t, "post-task"))
	count(2)
	r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "done-task", "message": map[string]any{"id": "msg_done_task", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Delegated"}}}})
	r.Hook("stop", map[string]any{"hook_event_name": "Stop", "last_assistant_message": "Delegated"})
	count(2) // nothing left to commit

	r.AgentTurn("Add c", map[string]string{"c.txt": "c\n"})
	count(3)

	pts := r.RewindList()
	tasks := 0
	for _, p := range pts {
		msg, _ := p["message"].(string)
		if strings.HasPrefix(msg, "Completed 'general-purpose' agent: Write sub file (") {
			tasks++
			if p["is_task_checkpoint"] != true || p["tool_use_id"] != "toolu_fake_0007" {
				t.Errorf("task point %v", p)
			}
			continue
		}
		if p["is_task_checkpoint"] != false || p["tool_use_id"] != nil {
			t.Errorf("point %q marked as a task: %v", msg, p)
		}
	}
	if tasks != 1 || len(pts) != 3 {
		t.Errorf("points %v", pts)
	}
}

// A hook manager that rewrites .git/hooks/pre-push between prompts would
// stop the metadata push silently: the next prompt puts our hooks back
// (SPEC 2.6 turn start, step 2), under either strategy, keeping the
// foreign hook as a chained backup, and the next push carries the
// metadata.
func TestPromptReinstallsOverwrittenGitHooks(t *testing.T) {
	t.Parallel()
	for _, auto := range []bool{false, true} {
		name := "manual-commit"
		if auto {
			name = "auto-commit"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := e2etest.NewSessionRepo(t)
			if auto {
				r = e2etest.NewAutoCommitRepo(t)
			}
			origin := t.TempDir()
			gittest.Git(t, origin, "init", "-q", "--bare")
			gittest.Git(t, r.Dir, "remote", "add", "origin", origin)
			r.AgentTurn("Add a", map[string]string{"a.txt": "a\n"})

			hooks := filepath.Join(r.Dir, ".git", "hooks")
			ran := filepath.Join(t.TempDir(), "foreign-ran")
			e2etest.WriteScript(t, filepath.Join(hooks, "pre-push"), "#!/bin/sh\necho pushed >> '"+ran+"'\nexit 0\n")
			if err := os.Remove(filepath.Join(hooks, "post-commit")); err != nil {
				t.Fatal(err)
			}
			r.AgentTurn("Add b", map[string]string{"b.txt": "b\n"})
			for _, h := range []string{"pre-push", "post-commit"} {
				if b, err := os.ReadFile(filepath.Join(hooks, h)); err != nil || !strings.Contains(string(b), "# Entire CLI hooks") {
					t.Errorf("%s not reinstalled after the prompt: %v\n%s", h, err, b)
				}
			}
			if st := gittest.Git(t, r.Dir, "status", "--porcelain", "--untracked-files=all"); auto && st != "" {
				t.Errorf("git status after the turn:\n%s", st)
			}
			if !auto {
				gittest.Git(t, r.Dir, "add", "a.txt", "b.txt")
				r.MustGit("commit", "-q", "-m", "Add a and b")
			}
			r.MustGit("push", "-q", "origin", "main")
			e2etest.AwaitBackground(t) // origin had no branch: main went first
			local := gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1")
			if remote, err := exec.Command("git", "--git-dir", origin, "rev-parse", "entire/checkpoints/v1").Output(); err != nil || strings.TrimSpace(string(remote)) != local {
				t.Errorf("origin's metadata branch %q (%v), local %s", remote, err, local)
			}
			if b, err := os.ReadFile(ran); err != nil || string(b) != "pushed\n" {
				t.Errorf("the foreign pre-push did not run once through the chain: %q %v", b, err)
			}
		})
	}
}

// Payloads without tool_name, as Entire 0.4.x reads them: pre-task and
// post-task still make the task checkpoint, and post-todo tells the todo
// tool from tool_input's shape.
func TestTaskHooksWithoutToolName(t *testing.T) {
	t.Parallel()
	r := e2etest.NewAutoCommitRepo(t)
	gittest.Git(t, r.Dir, "checkout", "-q", "-b", "feature")
	r.Turn++
	r.Hook("user-prompt-submit", map[string]any{"prompt": "Delegate"})
	r.AppendTranscript(map[string]any{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": "Delegate"}})
	r.Hook("pre-task", realPayload(t, "pre-task", "tool_name"))

	gittest.WriteFile(t, r.Dir, "one.txt", "1\n")
	r.Hook("post-todo", realPayload(t, "post-todo", "tool_name")) // TaskCreate: {"subject": ...}
	gittest.WriteFile(t, r.Dir, "two.txt", "2\n")
	r.Hook("post-todo", map[string]any{"tool_use_id": "toolu_tu", "tool_input": map[string]any{"taskId": "1", "status": "completed"}})
	gittest.WriteFile(t, r.Dir, "three.txt", "3\n")
	r.Hook("post-todo", map[string]any{"tool_use_id": "toolu_tw", "tool_input": map[string]any{"todos": []any{
		map[string]any{"content": "Write three", "activeForm": "Writing three", "status": "completed"}}}})
	gittest.WriteFile(t, r.Dir, "sub.txt", "sub\n")
	r.Hook("post-task", realPayload(t, "post-task", "tool_name"))

	log := gittest.Git(t, r.Dir, "log", "--format=%s", "main..HEAD")
	want := "Completed 'general-purpose' agent: Write sub file (toolu_fake_0)\nWrite three (toolu_fake_0)\nRun bash (toolu_fake_0)\nPlanning: 1 todos (toolu_fake_0)"
	if log != want {
		t.Fatalf("commits:\n%s\nwant\n%s", log, want)
	}
	for rev, typ := range map[string]string{"HEAD~3": "TaskCreate", "HEAD~2": "TaskUpdate", "HEAD~1": "TodoWrite"} {
		id := e2etest.CheckpointOf(t, gittest.Git(t, r.Dir, "log", "-1", "--format=%B", rev))
		seq := map[string]string{"HEAD~3": "001", "HEAD~2": "002", "HEAD~1": "003"}[rev]
		rec := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id, "tasks/toolu_fake_0007/checkpoints/"+seq+"-toolu_fake_0007.json"))
		if rec["type"] != typ {
			t.Errorf("%s: incremental record type %v, want %s", rev, rec["type"], typ)
		}
	}
	id := e2etest.CheckpointOf(t, gittest.Git(t, r.Dir, "log", "-1", "--format=%B"))
	if m := e2etest.SessionMeta(t, r.Dir, id); m["is_task"] != true || m["tool_use_id"] != "toolu_fake_0007" {
		t.Errorf("task metadata %v", m)
	}
}

// The same payloads under manual-commit: the task step lands on the shadow
// branch.
func TestManualTaskHooksWithoutToolName(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Turn++
	r.Hook("user-prompt-submit", map[string]any{"prompt": "Delegate"})
	r.AppendTranscript(map[string]any{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": "Delegate"}})
	r.Hook("pre-task", realPayload(t, "pre-task", "tool_name"))
	gittest.WriteFile(t, r.Dir, "sub.txt", "sub\n")
	r.Hook("post-task", realPayload(t, "post-task", "tool_name"))
	shadow := r.ShadowBranch()
	if s := gittest.Git(t, r.Dir, "log", "-1", "--format=%s", shadow); s != "Completed 'general-purpose' agent: Write sub file (toolu_fake_0)" {
		t.Errorf("shadow tip %q", s)
	}
}

// setSessionMetaField rewrites one field of slot 0's metadata.json of a
// checkpoint with a new metadata commit, as an older version would have
// written it.
func setSessionMetaField(t *testing.T, dir, id, key string, value any) {
	t.Helper()
	path := id[:2] + "/" + id[2:] + "/0/metadata.json"
	m := e2etest.ShowJSON(t, dir, "entire/checkpoints/v1:"+path)
	m[key] = value
	b, _ := json.MarshalIndent(m, "", "  ")
	tmp := filepath.Join(t.TempDir(), "metadata.json")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	idx := append(gittest.Env(t.TempDir()), "GIT_INDEX_FILE="+filepath.Join(t.TempDir(), "index"))
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, idx
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tip := run("rev-parse", "entire/checkpoints/v1")
	run("read-tree", tip)
	blob := run("hash-object", "-w", tmp)
	run("update-index", "--cacheinfo", "100644,"+blob+","+path)
	tree := run("write-tree")
	commit := run("commit-tree", tree, "-p", tip, "-m", "Checkpoint: "+id)
	run("update-ref", "refs/heads/entire/checkpoints/v1", commit, tip)
}

// Git-hook log lines carry the component attribute (SPEC 7.5), as the
// agent-hook lines do.
func TestGitHookLogLinesHaveComponent(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.AgentTurn("Add a", map[string]string{"a.txt": "a\n"})
	gittest.Git(t, r.Dir, "add", "a.txt")
	r.MustGit("commit", "-q", "-m", "Add a")
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(e2etest.LogText(r.Dir)), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		msg, _ := rec["msg"].(string)
		if msg != "git hook completed" && msg != "hook completed" {
			continue
		}
		seen[msg] = true
		if rec["component"] != "hooks" {
			t.Errorf("log line without component hooks: %s", l)
		}
		if msg == "git hook completed" && rec["hook_type"] != "git" {
			t.Errorf("git hook line without hook_type git: %s", l)
		}
	}
	if !seen["git hook completed"] || !seen["hook completed"] {
		t.Errorf("log lacks hook lines:\n%s", e2etest.LogText(r.Dir))
	}
}
