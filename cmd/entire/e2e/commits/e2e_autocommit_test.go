package commits

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func TestAutoCommitSessionEndToEnd(t *testing.T) {
	t.Parallel()
	r := e2etest.NewAutoCommitRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	base := gittest.Git(t, r.Dir, "rev-parse", "HEAD")

	errOut := r.AgentTurn("Please add a greeting", map[string]string{"hello.txt": "hello\n"})
	if !strings.Contains(errOut, "Committed code changes to active branch (") || !strings.Contains(errOut, "Committed session metadata to entire/checkpoints/v1 (") {
		t.Errorf("turn 1 stderr:\n%s", errOut)
	}
	msg1 := gittest.Git(t, r.Dir, "log", "-1", "--format=%B")
	id1 := e2etest.CheckpointOf(t, msg1)
	if want := "Add a greeting\n\nEntire-Checkpoint: " + id1; msg1 != want {
		t.Errorf("commit message %q, want %q", msg1, want)
	}
	if parent := gittest.Git(t, r.Dir, "rev-parse", "HEAD^"); parent != base {
		t.Errorf("checkpoint commit's parent %s, want %s", parent, base)
	}
	if author := gittest.Git(t, r.Dir, "log", "-1", "--format=%an <%ae>"); author != "Test User <test@example.com>" {
		t.Errorf("author %q", author)
	}
	if files := gittest.Git(t, r.Dir, "show", "--format=", "--name-only", "HEAD"); files != "hello.txt" {
		t.Errorf("turn 1 committed %q", files)
	}
	m := e2etest.SessionMeta(t, r.Dir, id1)
	if m["strategy"] != "auto-commit" || m["checkpoints_count"] != float64(1) || m["session_id"] != "sess-1" ||
		m["agent"] != "Claude Code" || m["turn_id"] == nil || m["token_usage"] == nil || m["branch"] == nil {
		t.Errorf("turn 1 metadata %v", m)
	}
	if ft, _ := json.Marshal(m["files_touched"]); string(ft) != `["hello.txt"]` {
		t.Errorf("turn 1 files_touched %s", ft)
	}
	if _, ok := m["checkpoint_transcript_start"]; ok {
		t.Errorf("turn 1 starts at the transcript start, got %v", m["checkpoint_transcript_start"])
	}
	shard := "entire/checkpoints/v1:" + id1[:2] + "/" + id1[2:] + "/0/"
	if p := gittest.Git(t, r.Dir, "show", shard+"prompt.txt"); p != "Please add a greeting" {
		t.Errorf("prompt.txt %q", p)
	}
	if c := gittest.Git(t, r.Dir, "show", shard+"context.md"); !strings.Contains(c, "**Commit Message:** Add a greeting") {
		t.Errorf("context.md:\n%s", c)
	}
	live, _ := os.ReadFile(r.Transcript)
	if tr := gittest.Git(t, r.Dir, "show", shard+"full.jsonl"); tr != strings.TrimSuffix(string(live), "\n") {
		t.Errorf("stored transcript differs from the live one")
	}
	if st := gittest.Git(t, r.Dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status after turn 1:\n%s", st)
	}

	r.AgentTurn("Add a farewell too", map[string]string{"bye.txt": "bye\n", "src/app.go": "package app\n"})
	id2 := e2etest.CheckpointOf(t, gittest.Git(t, r.Dir, "log", "-1", "--format=%B"))
	if id2 == id1 {
		t.Fatal("turn 2 reused the checkpoint ID")
	}
	m = e2etest.SessionMeta(t, r.Dir, id2)
	if ft, _ := json.Marshal(m["files_touched"]); string(ft) != `["bye.txt","src/app.go"]` {
		t.Errorf("turn 2 files_touched %s", ft)
	}
	if m["checkpoint_transcript_start"] != float64(3) || m["checkpoints_count"] != float64(1) { // turn 1: prompt, Write, answer
		t.Errorf("turn 2 metadata %v", m)
	}
	if n := gittest.Git(t, r.Dir, "rev-list", "--count", base+"..HEAD"); n != "2" {
		t.Errorf("%s commits after two turns, want 2", n)
	}

	// A turn that changes nothing makes no commit and no checkpoint.
	metaTip := gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1")
	head := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	r.AgentTurn("Explain the code", nil)
	if h := gittest.Git(t, r.Dir, "rev-parse", "HEAD"); h != head {
		t.Errorf("a turn without changes committed %s", h)
	}
	if tip := gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1"); tip != metaTip {
		t.Errorf("a turn without changes wrote a checkpoint")
	}

	// A deletion is committed as a deletion.
	if err := os.Remove(r.Dir + "/bye.txt"); err != nil {
		t.Fatal(err)
	}
	r.AgentTurn("Remove the farewell", nil)
	if files := gittest.Git(t, r.Dir, "show", "--format=", "--name-status", "HEAD"); files != "D\tbye.txt" {
		t.Errorf("deletion commit %q", files)
	}
	if st := gittest.Git(t, r.Dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status at the end:\n%s", st)
	}
	if b := gittest.Git(t, r.Dir, "branch", "--list", "entire/*", "--format=%(refname:short)"); b != "entire/checkpoints/v1" {
		t.Errorf("auto-commit made branches:\n%s", b)
	}
	gittest.Fsck(t, r.Dir)
}

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
