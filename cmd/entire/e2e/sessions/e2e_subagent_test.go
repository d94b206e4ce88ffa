package sessions

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/explain"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
	"github.com/entirecli/entire/renderrefs"
)

// TestSubagentConclusionEndToEnd plays a Claude Code turn that delegates to
// a subagent, with the hook payloads Claude Code sends (PreToolUse,
// SubagentStart, SubagentStop, PostToolUse of the Agent tool).
func TestSubagentConclusionEndToEnd(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.Hook("user-prompt-submit", map[string]any{"prompt": "Document the layout"})
	r.AppendTranscript(map[string]any{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": "Document the layout"}})

	// A note the subagent's memory ref names.
	if _, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, "", "note", "save", "proj-layout", "Layout: cmd/ and pkg/"); code != 0 {
		t.Fatalf("note save: %s", errOut)
	}

	input := map[string]any{"description": "Document layout", "prompt": "Write docs/layout.md", "subagent_type": "general-purpose"}
	r.Hook("pre-task", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_use_id": "toolu_agent1", "tool_input": input})
	r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "a1", "message": map[string]any{"id": "msg_a1", "role": "assistant",
		"content": []any{map[string]any{"type": "tool_use", "id": "toolu_agent1", "name": "Agent", "input": input}}}})

	out, _ := r.Hook("subagent-start", map[string]any{"hook_event_name": "SubagentStart", "agent_id": "a1b2c3", "agent_type": "general-purpose"})
	var start struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &start); err != nil || start.HookSpecificOutput.HookEventName != "SubagentStart" ||
		!strings.Contains(start.HookSpecificOutput.AdditionalContext, "<entire:conclusion>") {
		t.Fatalf("subagent-start stdout %q (%v)", out, err)
	}

	// The subagent writes a file and its own transcript, then stops.
	gittest.WriteFile(t, r.Dir, "docs/layout.md", "# Layout\n")
	subPath := filepath.Join(strings.TrimSuffix(r.Transcript, ".jsonl"), "subagents", "agent-a1b2c3.jsonl")
	if err := os.MkdirAll(filepath.Dir(subPath), 0o750); err != nil {
		t.Fatal(err)
	}
	sub, _ := json.Marshal(map[string]any{"type": "assistant", "uuid": "s1", "message": map[string]any{"id": "msg_s1", "role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": e2etest.SubagentFinal}}}})
	if err := os.WriteFile(subPath, append(sub, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ = r.Hook("subagent-stop", map[string]any{"hook_event_name": "SubagentStop", "agent_id": "a1b2c3", "agent_type": "general-purpose",
		"agent_transcript_path": subPath, "stop_hook_active": false})
	if strings.TrimSpace(out) != "" {
		t.Fatalf("subagent-stop printed %q (it would keep the subagent running)", out)
	}

	resp := map[string]any{"status": "completed", "agentId": "a1b2c3", "content": []any{map[string]any{"type": "text", "text": e2etest.SubagentFinal}}, "totalTokens": 120}
	r.AppendTranscript(map[string]any{"type": "user", "uuid": "u2", "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_agent1", "content": []any{map[string]any{"type": "text", "text": e2etest.SubagentFinal}}}}}})
	out, errOut := r.Hook("post-task", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Agent", "tool_use_id": "toolu_agent1", "tool_input": input, "tool_response": resp})
	var post struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &post); err != nil {
		t.Fatalf("post-task stdout is not one JSON answer: %q (%v); stderr %q", out, err, errOut)
	}
	want := "[delegated-result task=toolu_agent1 engine=claude-code project=" + filepath.Base(r.Dir) + " status=success confidence=0.90]\n" +
		"summary: Documented the layout of the project.\n" +
		"artifacts:\n  - docs/layout.md (9 B)\n  - docs/gone.md (missing)\n" +
		"memory_refs:\n  - proj-layout (note: Layout: cmd/ and pkg/)"
	if got := post.HookSpecificOutput.AdditionalContext; post.HookSpecificOutput.HookEventName != "PostToolUse" || got != want {
		t.Errorf("post-task context:\n%s\nwant:\n%s", got, want)
	}

	shadow := r.ShadowBranch()
	if shadow == "" {
		t.Fatal("no shadow branch after the task checkpoint")
	}
	var task struct {
		ID         string `json:"id"`
		Engine     string `json:"engine"`
		Status     string `json:"status"`
		Conclusion struct {
			Status  string `json:"status"`
			Summary string `json:"summary"`
		} `json:"conclusion"`
	}
	raw := gittest.Git(t, r.Dir, "show", shadow+":.entire/metadata/sess-1/tasks/toolu_agent1/conclusion.json")
	if err := json.Unmarshal([]byte(raw), &task); err != nil || task.ID != "toolu_agent1" || task.Conclusion.Status != "success" {
		t.Fatalf("task checkpoint conclusion.json %s (%v)", raw, err)
	}

	// The turn ends, the user commits.
	r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "done", "message": map[string]any{"id": "msg_done", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Done"}}}})
	r.Hook("stop", map[string]any{"hook_event_name": "Stop", "last_assistant_message": "Done"})
	id, _ := r.Commit("Add layout docs", nil, "docs/layout.md")
	raw = r.SlotFile(id, "tasks/toolu_agent1/conclusion.json")
	if err := json.Unmarshal([]byte(raw), &task); err != nil || task.Engine != "claude-code" || task.Status != "completed" ||
		task.Conclusion.Summary != "Documented the layout of the project." {
		t.Errorf("committed conclusion.json %s (%v)", raw, err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".entire", "tmp", "subagents", "sess-1")); !os.IsNotExist(err) {
		t.Errorf("pending task records left after condensation: %v", err)
	}

	// What explain shows for the slot (taskview is its renderer).
	repo, err := gitrepo.Open(r.Dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	cp, err := checkpoint.NewStore(repo, nil).Read(checkpoint.ID(id))
	if err != nil {
		t.Fatal(err)
	}
	var view strings.Builder
	if err := explain.WriteTasks(context.Background(), &view, repo, cp.Sessions[0], explain.TaskOptions{}); err != nil {
		t.Fatal(err)
	}
	explained, errOut, code := r.Entire("explain", "--checkpoint", id, "--no-pager")
	if code != 0 {
		t.Fatalf("entire explain: %d %s", code, errOut)
	}
	for _, w := range []string{"Task toolu_agent1 (claude-code, completed): success, confidence 0.90", "docs/layout.md (present), docs/gone.md (missing)"} {
		if !strings.Contains(view.String(), w) {
			t.Errorf("explain view lacks %q:\n%s", w, view.String())
		}
		if !strings.Contains(explained, w) {
			t.Errorf("entire explain lacks %q:\n%s", w, explained)
		}
	}
	gittest.Fsck(t, r.Dir)
}

// TestRenderReferencesEndToEnd: an agent's `entire note save` emits a
// reference; after the commit the stored transcript has no marker and the
// slot's references.json names the note.
func TestRenderReferencesEndToEnd(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	refsOn := []string{renderrefs.EnvVar + "=1"}
	r.Hook("user-prompt-submit", map[string]any{"prompt": "Remember the layout"})
	r.AppendTranscript(map[string]any{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": "Remember the layout"}})

	// The agent runs the command through its Bash tool.
	_, errOut, code := e2etest.RunEntire(t, r.Dir, append(append([]string{}, r.Env...), refsOn...), "", "note", "save", "proj-layout", "Layout: cmd/ and pkg/")
	if code != 0 || !strings.Contains(errOut, renderrefs.Marker) {
		t.Fatalf("note save (exit %d) stderr %q", code, errOut)
	}
	if _, plain, _ := e2etest.RunEntire(t, r.Dir, r.Env, "", "note", "save", "other", "x"); strings.Contains(plain, renderrefs.Marker) {
		t.Errorf("marker shown without %s=1: %q", renderrefs.EnvVar, plain)
	}
	cmdText := "entire note save proj-layout 'Layout: cmd/ and pkg/'"
	gittest.WriteFile(t, r.Dir, "layout.txt", "cmd/ pkg/\n")
	r.AppendTranscript(
		map[string]any{"type": "assistant", "uuid": "a1", "message": map[string]any{"id": "msg_a1", "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_bash1", "name": "Bash", "input": map[string]any{"command": cmdText}}}}},
		map[string]any{"type": "user", "uuid": "u2", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_bash1", "content": errOut}}},
			"toolUseResult": map[string]any{"stdout": "", "stderr": errOut, "interrupted": false, "isImage": false}},
		map[string]any{"type": "assistant", "uuid": "a2", "message": map[string]any{"id": "msg_a2", "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_w1", "name": "Write", "input": map[string]any{"file_path": filepath.Join(r.Dir, "layout.txt"), "content": "cmd/ pkg/\n"}}}}},
		map[string]any{"type": "assistant", "uuid": "done", "message": map[string]any{"id": "msg_done", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Saved."}}}})
	r.Hook("stop", map[string]any{"hook_event_name": "Stop", "last_assistant_message": "Saved."})

	// The agent's own git commit: the post-commit hook announces the checkpoint.
	id, gitErr := r.Commit("Record layout", refsOn, "layout.txt")
	if !strings.Contains(gitErr, renderrefs.Marker+`{"v":1,"type":"checkpoint","id":"`+id+`"`) {
		t.Errorf("post-commit did not announce checkpoint %s: %q", id, gitErr)
	}

	stored := r.SlotFile(id, "full.jsonl")
	if strings.Contains(stored, renderrefs.Marker) {
		t.Errorf("stored transcript keeps the marker:\n%s", stored)
	}
	if !strings.Contains(stored, "Saved note proj-layout") {
		t.Errorf("stored transcript lost the command's own output:\n%s", stored)
	}
	sc := bufio.NewScanner(strings.NewReader(stored))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if !json.Valid(sc.Bytes()) {
			t.Errorf("stored line is not JSON: %s", sc.Text())
		}
	}
	var refs []renderrefs.Reference
	raw := r.SlotFile(id, "references.json")
	if err := json.Unmarshal([]byte(raw), &refs); err != nil || len(refs) != 1 || refs[0].Type != "note" || refs[0].ID != "proj-layout" ||
		refs[0].Preview == nil || refs[0].Preview.Title != "Layout: cmd/ and pkg/" {
		t.Errorf("references.json %s (%v)", raw, err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".entire", "tmp", "references-sess-1.json")); !os.IsNotExist(err) {
		t.Errorf("pending references left after condensation: %v", err)
	}
}

func TestSubagentConclusionVariants(t *testing.T) {
	t.Parallel()
	input := map[string]any{"description": "Look around", "prompt": "Explore", "subagent_type": "Explore"}
	completed := map[string]any{"status": "completed", "agentId": "ag1", "content": []any{map[string]any{"type": "text", "text": e2etest.SubagentFinal}}}
	t.Run("no subagent-stop: the tool response is parsed", func(t *testing.T) {
		t.Parallel()
		r := e2etest.NewSessionRepo(t)
		r.Hook("user-prompt-submit", map[string]any{"prompt": "p"})
		r.Hook("pre-task", map[string]any{"tool_name": "Agent", "tool_use_id": "toolu_x", "tool_input": input})
		out, _ := r.Hook("post-task", map[string]any{"tool_name": "Agent", "tool_use_id": "toolu_x", "tool_input": input, "tool_response": completed})
		if !strings.Contains(out, `[delegated-result task=toolu_x engine=claude-code project=`) || !strings.Contains(out, "status=success confidence=0.90]") {
			t.Errorf("post-task stdout %q", out)
		}
		if rec := r.PendingTask("ag1"); rec == nil || rec["id"] != "toolu_x" || rec["conclusion"] == nil {
			t.Errorf("pending record %v", rec)
		}
	})
	t.Run("background launch: stored, not shown", func(t *testing.T) {
		t.Parallel()
		r := e2etest.NewSessionRepo(t)
		r.Hook("user-prompt-submit", map[string]any{"prompt": "p"})
		r.Hook("pre-task", map[string]any{"tool_name": "Agent", "tool_use_id": "toolu_bg", "tool_input": input})
		r.Hook("subagent-start", map[string]any{"agent_id": "ag1", "agent_type": "Explore"})
		out, _ := r.Hook("post-task", map[string]any{"tool_name": "Agent", "tool_use_id": "toolu_bg", "tool_input": input,
			"tool_response": map[string]any{"status": "async_launched", "agentId": "ag1", "outputFile": "/tmp/out"}})
		if strings.TrimSpace(out) != "" {
			t.Errorf("post-task of a background launch printed %q", out)
		}
		if rec := r.PendingTask("ag1"); rec == nil || rec["id"] != "toolu_bg" || rec["status"] != "running" || rec["conclusion"] != nil {
			t.Errorf("launch record %v", rec)
		}
		out, _ = r.Hook("subagent-stop", map[string]any{"agent_id": "ag1", "agent_type": "Explore", "last_assistant_message": e2etest.SubagentFinal})
		if strings.TrimSpace(out) != "" {
			t.Errorf("subagent-stop printed %q", out)
		}
		rec := r.PendingTask("ag1")
		if rec == nil || rec["id"] != "toolu_bg" || rec["status"] != "completed" || rec["started_at"] == nil {
			t.Fatalf("record after stop %v", rec)
		}
		if c, _ := rec["conclusion"].(map[string]any); c == nil || c["status"] != "success" {
			t.Errorf("conclusion %v", rec["conclusion"])
		}
	})
	t.Run("conclusions off", func(t *testing.T) {
		t.Parallel()
		r := e2etest.NewSessionRepo(t)
		s, err := settings.Load(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		s.SetOption(settings.OptConclusions, false)
		if err := settings.Save(settings.ProjectPath(r.Dir), s); err != nil {
			t.Fatal(err)
		}
		r.Hook("user-prompt-submit", map[string]any{"prompt": "p"})
		if out, _ := r.Hook("subagent-start", map[string]any{"agent_id": "ag1"}); strings.TrimSpace(out) != "" {
			t.Errorf("subagent-start printed %q", out)
		}
		r.Hook("subagent-stop", map[string]any{"agent_id": "ag1", "last_assistant_message": e2etest.SubagentFinal})
		r.Hook("pre-task", map[string]any{"tool_name": "Agent", "tool_use_id": "toolu_x", "tool_input": input})
		if out, _ := r.Hook("post-task", map[string]any{"tool_name": "Agent", "tool_use_id": "toolu_x", "tool_input": input, "tool_response": completed}); strings.TrimSpace(out) != "" {
			t.Errorf("post-task printed %q", out)
		}
		if rec := r.PendingTask("ag1"); rec != nil {
			t.Errorf("record kept with conclusions off: %v", rec)
		}
	})
}

// TestRenderReferencesMidTurnCommit: the agent commits during its turn;
// the turn's end rewrites the checkpoint's transcript and keeps the
// references of both parts.
func TestRenderReferencesMidTurnCommit(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	refsOn := []string{renderrefs.EnvVar + "=1"}
	env := append(append([]string{}, r.Env...), refsOn...)
	r.Hook("user-prompt-submit", map[string]any{"prompt": "Remember things"})
	r.AppendTranscript(map[string]any{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": "Remember things"}})
	bash := func(n int, args ...string) {
		_, errOut, code := e2etest.RunEntire(t, r.Dir, env, "", args...)
		if code != 0 {
			t.Fatalf("%v: %s", args, errOut)
		}
		id := fmt.Sprintf("toolu_bash%d", n)
		r.AppendTranscript(
			map[string]any{"type": "assistant", "uuid": "a" + id, "message": map[string]any{"id": "msg_" + id, "role": "assistant",
				"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": strings.Join(args, " ")}}}}},
			map[string]any{"type": "user", "uuid": "u" + id, "message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": errOut}}}})
	}
	bash(1, "note", "save", "first-note", "one")
	gittest.WriteFile(t, r.Dir, "a.txt", "a\n")
	r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "w1", "message": map[string]any{"id": "msg_w1", "role": "assistant",
		"content": []any{map[string]any{"type": "tool_use", "id": "toolu_w1", "name": "Write", "input": map[string]any{"file_path": filepath.Join(r.Dir, "a.txt"), "content": "a\n"}}}}})
	id, _ := r.Commit("Add a", refsOn, "a.txt")
	bash(2, "note", "save", "second-note", "two")
	r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "done", "message": map[string]any{"id": "msg_done", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Done"}}}})
	r.Hook("stop", map[string]any{"hook_event_name": "Stop", "last_assistant_message": "Done"})

	stored := r.SlotFile(id, "full.jsonl")
	if strings.Contains(stored, renderrefs.Marker) || !strings.Contains(stored, "Saved note second-note") {
		t.Errorf("finalized transcript:\n%s", stored)
	}
	var refs []renderrefs.Reference
	raw := r.SlotFile(id, "references.json")
	if err := json.Unmarshal([]byte(raw), &refs); err != nil || len(refs) != 2 || refs[0].ID != "first-note" || refs[1].ID != "second-note" {
		t.Errorf("references.json after finalize %s (%v)", raw, err)
	}
}
