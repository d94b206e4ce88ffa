package pushes

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// Subagent checkpoints: pre-task/post-task with tool_name Agent (current
// Claude Code) and Task (before 2.1.63), each with an agent-<id>.jsonl
// transcript of its own, found through tool_response.agentId.
func TestE2ESubagentCheckpoints(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.StartTurn(r.Dir, "Delegate two helpers")
	projDir := filepath.Dir(r.Transcript)
	for i, tc := range []struct{ tool, agentID, subPath, file string }{
		// Current layout: <session>/subagents/agent-<id>.jsonl.
		{"Agent", "a1b2c3d4", filepath.Join(projDir, "sess-1", "subagents", "agent-a1b2c3d4.jsonl"), "helpers/one.go"},
		// Older layout: agent-<id>.jsonl beside the session transcript.
		{"Task", "e5f6a7b8", filepath.Join(projDir, "agent-e5f6a7b8.jsonl"), "helpers/two.go"},
	} {
		toolUseID := fmt.Sprintf("toolu_01TaskCall%d%s", i, tc.tool)
		input := map[string]any{"description": "Write helper " + tc.file, "subagent_type": "general-purpose", "prompt": "write it"}
		r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "call-" + tc.tool, "message": map[string]any{"id": "msg_call_" + tc.tool, "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": toolUseID, "name": tc.tool, "input": input}}}})
		r.MustHookIn(r.Dir, "pre-task", map[string]any{"hook_event_name": "PreToolUse", "tool_name": tc.tool, "tool_use_id": toolUseID, "tool_input": input})

		// The subagent works and writes its own transcript.
		gittest.WriteFile(t, r.Dir, tc.file, "package helpers\n")
		sub := &e2etest.SessionRepo{T: t, Transcript: tc.subPath}
		if err := os.MkdirAll(filepath.Dir(tc.subPath), 0o755); err != nil {
			t.Fatal(err)
		}
		sub.AppendTranscript(
			map[string]any{"type": "user", "uuid": "su-" + tc.agentID, "isSidechain": true, "agentId": tc.agentID, "message": map[string]any{"role": "user", "content": "write it"}},
			map[string]any{"type": "assistant", "uuid": "sa-" + tc.agentID, "isSidechain": true, "agentId": tc.agentID, "message": map[string]any{"id": "msg_sub_" + tc.agentID, "role": "assistant",
				"content": []any{map[string]any{"type": "tool_use", "id": "toolu_sub_" + tc.agentID, "name": "Write", "input": map[string]any{"file_path": filepath.Join(r.Dir, tc.file), "content": "package helpers\n"}}}}},
		)
		r.AppendTranscript(map[string]any{"type": "user", "uuid": "result-" + tc.tool, "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": toolUseID, "content": "done"}}}})
		r.MustHookIn(r.Dir, "post-task", map[string]any{"hook_event_name": "PostToolUse", "tool_name": tc.tool, "tool_use_id": toolUseID, "tool_input": input,
			"tool_response": map[string]any{"status": "completed", "agentId": tc.agentID, "content": []any{map[string]any{"type": "text", "text": "done"}}}})

		shadows := e2etest.ShadowBranches(t, r.Dir)
		if len(shadows) != 1 {
			t.Fatalf("%s: shadow branches %v", tc.tool, shadows)
		}
		msg := gittest.Git(t, r.Dir, "log", "-1", "--format=%B", shadows[0])
		taskDir := ".entire/metadata/sess-1/tasks/" + toolUseID
		if want := fmt.Sprintf("Completed 'general-purpose' agent: Write helper %s (%s)", tc.file, toolUseID[:12]); !strings.HasPrefix(msg, want+"\n") {
			t.Errorf("%s: task commit message:\n%s\nwant subject %q", tc.tool, msg, want)
		}
		if !strings.Contains(msg, "Entire-Metadata-Task: "+taskDir+"\n") || !strings.Contains(msg, "Entire-Session: sess-1") || !strings.Contains(msg, "Entire-Strategy: manual-commit") {
			t.Errorf("%s: task commit trailers:\n%s", tc.tool, msg)
		}
		cp := e2etest.ShowJSON(t, r.Dir, shadows[0]+":"+taskDir+"/checkpoint.json")
		if cp["session_id"] != "sess-1" || cp["tool_use_id"] != toolUseID || cp["checkpoint_uuid"] != "result-"+tc.tool || cp["agent_id"] != tc.agentID {
			t.Errorf("%s: checkpoint.json %v", tc.tool, cp)
		}
		stored := gittest.Git(t, r.Dir, "show", shadows[0]+":"+taskDir+"/agent-"+tc.agentID+".jsonl")
		subData, _ := os.ReadFile(tc.subPath)
		if stored != strings.TrimSuffix(string(subData), "\n") {
			t.Errorf("%s: stored subagent transcript differs", tc.tool)
		}
		if tree := gittest.Git(t, r.Dir, "ls-tree", "-r", "--name-only", shadows[0]); !strings.Contains(tree, tc.file) || !strings.Contains(tree, ".entire/metadata/sess-1/full.jsonl") {
			t.Errorf("%s: task tree:\n%s", tc.tool, tree)
		}
		if _, err := os.Stat(filepath.Join(r.Dir, ".entire", "tmp", "pre-task-"+toolUseID+".json")); err == nil {
			t.Errorf("%s: pre-task state not removed", tc.tool)
		}
	}
	if ft := e2etest.AnyStrings(e2etest.SessionState(t, r.Dir, "sess-1")["files_touched"]); !slices.Equal(ft, []string{"helpers/one.go", "helpers/two.go"}) {
		t.Errorf("files_touched after tasks %v", ft)
	}
	r.EndTurn(r.Dir, "Both helpers written")

	r.MustGit("add", "helpers")
	r.MustGit("commit", "-q", "-m", "Add helpers")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("commit not linked")
	}
	m := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id, "0/metadata.json"))
	if ft := e2etest.AnyStrings(m["files_touched"]); !slices.Equal(ft, []string{"helpers/one.go", "helpers/two.go"}) {
		t.Errorf("checkpoint files_touched %v", ft)
	}
	// Under manual-commit only the subagents' conclusions reach the metadata
	// branch (issue 7); the task checkpoints' own files stay on the shadow
	// branch (SPEC 5.2.9).
	for _, path := range strings.Split(gittest.Git(t, r.Dir, "ls-tree", "-r", "--name-only", "entire/checkpoints/v1", id[:2]+"/"+id[2:]), "\n") {
		if strings.Contains(path, "/tasks/") && !strings.HasSuffix(path, "/conclusion.json") {
			t.Errorf("manual-commit copied task file %s to the metadata branch", path)
		}
	}
	e2etest.AssertStoreClean(t, r.Dir, id)
}

// A repository's own hooks keep working: a plain script that a tool wrote
// over ours is moved aside and chained at the next prompt, and with
// core.hooksPath our hooks go where git looks, next to the user's.
func TestE2EExistingHooksKeepWorking(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		hooksDir func(r *e2etest.SessionRepo) string // where the foreign hooks live
	}{
		{"plain script over ours", func(r *e2etest.SessionRepo) string { return filepath.Join(r.Dir, ".git", "hooks") }},
		{"core.hooksPath", func(r *e2etest.SessionRepo) string {
			gittest.Git(t, r.Dir, "config", "core.hooksPath", ".githooks")
			return filepath.Join(r.Dir, ".githooks")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := e2etest.NewSessionRepo(t)
			dir := tc.hooksDir(r)
			marker := filepath.Join(t.TempDir(), "post-commit-ran")
			e2etest.WriteScript(t, filepath.Join(dir, "post-commit"), "#!/bin/sh\necho ran >> '"+marker+"'\n")
			e2etest.WriteScript(t, filepath.Join(dir, "commit-msg"), "#!/bin/sh\nprintf '\\nReviewed-by: hook\\n' >> \"$1\"\n")
			if strings.HasSuffix(dir, ".githooks") {
				// Committed like husky's directory.
				gittest.Git(t, r.Dir, "add", ".githooks")
				gittest.Git(t, r.Dir, "commit", "-q", "-m", "team hooks")
				os.Remove(marker) // that commit ran the user's post-commit too
			}

			r.PlayTurn("Add a file", map[string]string{"added.txt": "added\n"})
			for _, h := range []string{"post-commit", "commit-msg"} {
				if b, _ := os.ReadFile(filepath.Join(dir, h+".pre-entire")); !strings.Contains(string(b), "#!/bin/sh") {
					t.Errorf("%s: foreign hook not moved aside", h)
				}
			}
			if ft := e2etest.AnyStrings(e2etest.SessionState(t, r.Dir, "sess-1")["files_touched"]); !slices.Equal(ft, []string{"added.txt"}) {
				t.Errorf("files_touched %v (re-installed hooks must not count as agent work)", ft)
			}

			r.MustGit("add", "added.txt")
			r.MustGit("commit", "-q", "-m", "Add file")
			msg := gittest.Git(t, r.Dir, "log", "-1", "--format=%B")
			id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
			if id == "" || !strings.Contains(msg, "Reviewed-by: hook") {
				t.Errorf("commit message (want our trailer and the user's commit-msg line):\n%s", msg)
			}
			if b, _ := os.ReadFile(marker); string(b) != "ran\n" {
				t.Errorf("user's post-commit ran %q", b)
			}
			if id != "" {
				e2etest.AssertStoreClean(t, r.Dir, id)
			}
		})
	}
}
