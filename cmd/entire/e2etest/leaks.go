package e2etest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

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
