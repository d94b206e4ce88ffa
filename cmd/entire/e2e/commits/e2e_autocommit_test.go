package commits

import (
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func TestAutoCommitUserCommitsAreNotLinked(t *testing.T) {
	t.Parallel()
	r := e2etest.NewAutoCommitRepo(t)
	r.AgentTurn("Add a greeting", map[string]string{"hello.txt": "hello\n"})
	gittest.WriteFile(t, r.Dir, "notes.txt", "mine\n")
	gittest.Git(t, r.Dir, "add", "notes.txt")
	if out, err := e2etest.GitCmd(t, r, "commit", "-q", "-m", "my own change").CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	if msg := gittest.Git(t, r.Dir, "log", "-1", "--format=%B"); msg != "my own change" {
		t.Errorf("user commit message changed: %q", msg)
	}
}

func TestAutoCommitTaskCheckpoint(t *testing.T) {
	t.Parallel()
	r := e2etest.NewAutoCommitRepo(t)
	r.Hook("user-prompt-submit", map[string]any{"prompt": "Write tests with a subagent"})
	r.AppendTranscript(map[string]any{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": "Write tests with a subagent"}})
	task := map[string]any{"tool_name": "Task", "tool_use_id": "toolu_task1", "tool_input": map[string]any{"description": "write tests", "subagent_type": "general", "prompt": "go"}}
	r.Hook("pre-task", task)
	gittest.WriteFile(t, r.Dir, "tests/a_test.go", "package tests\n")
	task["tool_response"] = map[string]any{"agentId": "ag1"}
	_, errOut := r.Hook("post-task", task)
	msg := gittest.Git(t, r.Dir, "log", "-1", "--format=%B")
	id := e2etest.CheckpointOf(t, msg)
	if !strings.HasPrefix(msg, "Completed 'general' agent: write tests (toolu_task1)\n\n") {
		t.Errorf("task commit message %q (stderr %s)", msg, errOut)
	}
	m := e2etest.SessionMeta(t, r.Dir, id)
	if m["is_task"] != true || m["tool_use_id"] != "toolu_task1" {
		t.Errorf("task metadata %v", m)
	}
	cp := gittest.Git(t, r.Dir, "show", "entire/checkpoints/v1:"+id[:2]+"/"+id[2:]+"/tasks/toolu_task1/checkpoint.json")
	if !strings.Contains(cp, `"tool_use_id": "toolu_task1"`) || !strings.Contains(cp, `"agent_id": "ag1"`) {
		t.Errorf("checkpoint.json %s", cp)
	}
	body := gittest.Git(t, r.Dir, "log", "-1", "--format=%B", "entire/checkpoints/v1")
	if !strings.Contains(body, "Completed 'general' agent: write tests") || !strings.Contains(body, "Entire-Metadata-Task: "+id[:2]+"/"+id[2:]+"/tasks/toolu_task1") {
		t.Errorf("metadata commit:\n%s", body)
	}
	if st := gittest.Git(t, r.Dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status after the task:\n%s", st)
	}
	gittest.Fsck(t, r.Dir)
}

func TestAutoCommitIncrementalTaskCheckpoints(t *testing.T) {
	t.Parallel()
	r := e2etest.NewAutoCommitRepo(t)
	r.Hook("user-prompt-submit", map[string]any{"prompt": "Build it with a subagent"})
	task := map[string]any{"tool_name": "Task", "tool_use_id": "toolu_task2", "tool_input": map[string]any{"description": "build", "subagent_type": "general", "prompt": "go"}}
	todo := func(done ...string) map[string]any {
		var todos []any
		for _, d := range done {
			todos = append(todos, map[string]any{"content": d, "activeForm": d, "status": "completed"})
		}
		return map[string]any{"tool_name": "TodoWrite", "tool_use_id": "toolu_todo", "tool_input": map[string]any{"todos": todos}}
	}

	// On the default branch incremental checkpoints are skipped.
	r.Hook("pre-task", task)
	gittest.WriteFile(t, r.Dir, "x.go", "package x\n")
	head := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	if _, errOut := r.Hook("post-todo", todo("step one")); !strings.Contains(errOut, "skipping incremental checkpoint on branch") {
		t.Errorf("post-todo on the default branch: %q", errOut)
	}
	if h := gittest.Git(t, r.Dir, "rev-parse", "HEAD"); h != head {
		t.Error("incremental checkpoint committed on the default branch")
	}

	gittest.Git(t, r.Dir, "checkout", "-q", "-b", "feature")
	r.Hook("post-todo", todo("step one"))
	gittest.WriteFile(t, r.Dir, "y.go", "package x\n")
	r.Hook("post-todo", todo("step one", "step two"))
	log := gittest.Git(t, r.Dir, "log", "--format=%s", head+"..HEAD")
	if log != "step two (toolu_task2)\nstep one (toolu_task2)" {
		t.Fatalf("incremental commits:\n%s", log)
	}
	id := e2etest.CheckpointOf(t, gittest.Git(t, r.Dir, "log", "-1", "--format=%B"))
	rec := gittest.Git(t, r.Dir, "show", "entire/checkpoints/v1:"+id[:2]+"/"+id[2:]+"/tasks/toolu_task2/checkpoints/002-toolu_task2.json")
	if !strings.Contains(rec, `"type": "TodoWrite"`) || !strings.Contains(rec, "step two") {
		t.Errorf("incremental record:\n%s", rec)
	}
	if m := e2etest.SessionMeta(t, r.Dir, id); m["is_task"] != true || m["tool_use_id"] != "toolu_task2" || m["branch"] != "feature" {
		t.Errorf("incremental metadata %v", m)
	}
	if files := gittest.Git(t, r.Dir, "show", "--format=", "--name-only", "HEAD"); files != "y.go" {
		t.Errorf("second incremental commit has %q", files)
	}
	// Claude Code 2.1.197's task tools: TaskUpdate names the task by the
	// ID TaskCreate returned (nothing changed at the TaskCreate: no commit).
	r.Hook("post-todo", map[string]any{"tool_name": "TaskCreate", "tool_use_id": "toolu_tc",
		"tool_input":    map[string]any{"subject": "Ship it", "description": "Ship the build", "activeForm": "Shipping"},
		"tool_response": map[string]any{"task": map[string]any{"id": "1", "subject": "Ship it"}}})
	gittest.WriteFile(t, r.Dir, "z.go", "package x\n")
	r.Hook("post-todo", map[string]any{"tool_name": "TaskUpdate", "tool_use_id": "toolu_tu", "tool_input": map[string]any{"taskId": "1", "status": "completed"}})
	log = gittest.Git(t, r.Dir, "log", "--format=%s", head+"..HEAD")
	if log != "Ship it (toolu_task2)\nstep two (toolu_task2)\nstep one (toolu_task2)" {
		t.Fatalf("incremental commits after TaskCreate and TaskUpdate:\n%s", log)
	}
	if out, errOut, code := r.Entire("explain", "--commit", "HEAD", "--short", "--no-pager"); code != 0 || !strings.Contains(out, "\nTask: toolu_task2\n") {
		t.Errorf("explain of an incremental task checkpoint: %d %s\n%s", code, errOut, out)
	}
	if st := gittest.Git(t, r.Dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status:\n%s", st)
	}
	gittest.Fsck(t, r.Dir)
}
