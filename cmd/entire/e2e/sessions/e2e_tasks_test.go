package sessions

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// subagentTaskID is a tool use ID of the Agent tool as Claude Code 2.1.197
// writes them; commit subjects show its first 12 characters.
const subagentTaskID = "toolu_main_630f5bf8_4_0"

// TestSubagentTaskToolsEndToEnd plays a subagent that keeps its todo list
// with TaskCreate and TaskUpdate (Claude Code 2.1.197 has no TodoWrite):
// incremental task checkpoints are described by the subject of the task a
// TaskUpdate completes, found through the ID TaskCreate returned, and
// rewind --list and explain show the task's whole tool use ID.
func TestSubagentTaskToolsEndToEnd(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	gittest.Git(t, r.Dir, "checkout", "-q", "-b", "feature") // none on the default branch (SPEC 5.5)
	r.Hook("user-prompt-submit", map[string]any{"prompt": "Build the parser"})
	r.AppendTranscript(map[string]any{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": "Build the parser"}})
	input := map[string]any{"description": "Build the parser", "prompt": "Write parse.go", "subagent_type": "general-purpose"}
	r.Hook("pre-task", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_use_id": subagentTaskID, "tool_input": input})
	r.Hook("subagent-start", map[string]any{"hook_event_name": "SubagentStart", "agent_id": "a1b2c3", "agent_type": "general-purpose"})

	// The subagent's own PostToolUse payloads, shaped like the real one
	// (fixtures/hook-payloads/claude-code-2.1.197/claude-code-post-todo.json).
	todo := func(tool, useID string, in, resp map[string]any) {
		t.Helper()
		p := map[string]any{"hook_event_name": "PostToolUse", "tool_name": tool, "tool_use_id": useID, "tool_input": in,
			"agent_id": "a1b2c3", "agent_type": "general-purpose", "duration_ms": 11}
		if resp != nil {
			p["tool_response"] = resp
		}
		r.Hook("post-todo", p)
	}
	create := func(useID, id, subject string) {
		t.Helper()
		todo("TaskCreate", useID, map[string]any{"subject": subject, "description": subject + ", step by step", "activeForm": "Working on it"},
			map[string]any{"task": map[string]any{"id": id, "subject": subject}})
	}
	update := func(useID, id, status string) {
		t.Helper()
		todo("TaskUpdate", useID, map[string]any{"taskId": id, "status": status}, map[string]any{"success": true, "taskId": id})
	}
	shadowSubjects := func() []string {
		t.Helper()
		b := r.ShadowBranch()
		if b == "" {
			return nil
		}
		return strings.Split(gittest.Git(t, r.Dir, "log", "--format=%s", b), "\n")
	}

	create("toolu_create_1", "1", "Run bash") // nothing changed yet: remembered, no checkpoint
	if s := shadowSubjects(); s != nil {
		t.Fatalf("checkpoint without changes: %q", s)
	}
	gittest.WriteFile(t, r.Dir, "parse.go", "package parse\n")
	create("toolu_create_2", "2", "Write the parser")
	gittest.WriteFile(t, r.Dir, "parse_test.go", "package parse\n")
	update("toolu_update_1", "1", "completed")
	gittest.WriteFile(t, r.Dir, "doc.go", "// Package parse parses.\npackage parse\n")
	update("toolu_update_2", "2", "in_progress") // the last completed task still describes it
	// An older client's TodoWrite is described by its own list.
	gittest.WriteFile(t, r.Dir, "README.md", "parser\n")
	todo("TodoWrite", "toolu_todo_1", map[string]any{"todos": []any{
		map[string]any{"content": "Old style step", "activeForm": "Doing it", "status": "completed"},
		map[string]any{"content": "Next", "activeForm": "Next", "status": "pending"},
	}}, map[string]any{"oldTodos": []any{}, "newTodos": []any{}})

	want := []string{
		"Old style step (toolu_main_6)",
		"Run bash (toolu_main_6)",
		"Run bash (toolu_main_6)",
		"Planning: 2 todos (toolu_main_6)",
	}
	if got := shadowSubjects(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("incremental checkpoints:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	shadow := r.ShadowBranch()
	taskDir := ".entire/metadata/sess-1/tasks/" + subagentTaskID
	if msg := gittest.Git(t, r.Dir, "log", "-1", "--format=%B", shadow+"~2"); !strings.Contains(msg, "Entire-Metadata-Task: "+taskDir+"/checkpoints/002-"+subagentTaskID+".json") {
		t.Errorf("TaskUpdate checkpoint message:\n%s", msg)
	}
	var rec struct {
		Type      string         `json:"type"`
		ToolUseID string         `json:"tool_use_id"`
		Data      map[string]any `json:"data"`
	}
	raw := gittest.Git(t, r.Dir, "show", shadow+":"+taskDir+"/checkpoints/002-"+subagentTaskID+".json")
	if err := json.Unmarshal([]byte(raw), &rec); err != nil || rec.Type != "TaskUpdate" || rec.ToolUseID != subagentTaskID || rec.Data["taskId"] != "1" {
		t.Errorf("incremental record %s (%v)", raw, err)
	}
	if todos, _ := e2etest.SessionState(t, r.Dir, "sess-1")["todos"].(map[string]any); todos == nil || todos["created"] != float64(2) {
		t.Errorf("session state todos %v", todos)
	}

	// rewind --list: every task point carries the whole tool use ID.
	out, errOut, code := r.Entire("rewind", "--list")
	if code != 0 {
		t.Fatalf("rewind --list: %d %s", code, errOut)
	}
	var pts []struct {
		ID        string `json:"id"`
		Message   string `json:"message"`
		IsTask    bool   `json:"is_task_checkpoint"`
		ToolUseID string `json:"tool_use_id"`
	}
	if err := json.Unmarshal([]byte(out), &pts); err != nil || len(pts) != len(want) {
		t.Fatalf("rewind --list (%v):\n%s", err, out)
	}
	for i, p := range pts {
		if !p.IsTask || p.ToolUseID != subagentTaskID || p.Message != want[i] {
			t.Errorf("point %d: %+v", i, p)
		}
	}

	// explain of a task checkpoint names the task in full.
	explained, errOut, code := r.Entire("explain", "--checkpoint", pts[1].ID[:10], "--short", "--no-pager")
	if code != 0 || !strings.Contains(explained, "\nTask: "+subagentTaskID+"\n") {
		t.Errorf("entire explain of a task checkpoint: %d %s\n%s", code, errOut, explained)
	}
	list, _, _ := r.Entire("explain", "--no-pager")
	if !strings.Contains(list, "[Task]") || !strings.Contains(list, "Run bash (toolu_main_6)") {
		t.Errorf("entire explain list:\n%s", list)
	}
	gittest.Fsck(t, r.Dir)
}
