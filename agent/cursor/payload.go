package cursor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/entirecli/entire/agent"
)

// payload holds the members of Cursor's hook payloads that differ from
// the common snake_case shape agent.DecodeHookInput reads.
type payload struct {
	ConversationID      string   `json:"conversation_id"`
	ParentConversation  string   `json:"parent_conversation_id"`
	WorkspaceRoots      []string `json:"workspace_roots"`
	TranscriptPath      *string  `json:"transcript_path"`
	Model               string   `json:"model"`
	SubagentID          string   `json:"subagent_id"`
	SubagentType        string   `json:"subagent_type"`
	Task                string   `json:"task"`
	ToolCallID          string   `json:"tool_call_id"`
	Summary             *string  `json:"summary"`
	AgentTranscriptPath string   `json:"agent_transcript_path"`
	FilePath            string   `json:"file_path"`
	Status              string   `json:"status"`
}

// maxPayload bounds a hook payload, as agent.DecodeHookInput does.
const maxPayload = 64 << 20

// ParseHookInput reads a Cursor payload: conversation_id is the session
// (parent_conversation_id for a subagent's events; session_id where only
// it is sent), workspace_roots' first the
// directory, transcript_path the transcript (null from the CLI: the
// conversation's file in the transcript directory of the workspace);
// subagentStop's summary is the subagent's final text; afterFileEdit's
// file_path is a Write of that file.
func (a *Agent) ParseHookInput(hookType agent.HookType, r io.Reader) (*agent.HookInput, error) {
	raw, tooLarge, err := agent.ReadAtMost(r, maxPayload)
	if err != nil {
		return nil, fmt.Errorf("read hook input: %w", err)
	}
	if tooLarge {
		return nil, fmt.Errorf("read hook input: more than %d bytes: %w", maxPayload, agent.ErrMalformedInput)
	}
	in, err := agent.DecodeHookInput(hookType, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	var p payload
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("parse hook input: %w: %v", agent.ErrMalformedInput, err)
	}
	switch {
	case p.ParentConversation != "":
		// A subagent's event: the session is its parent's conversation.
		in.SessionID = p.ParentConversation
	case p.ConversationID != "":
		in.SessionID = p.ConversationID
	}
	if in.Cwd == "" && len(p.WorkspaceRoots) > 0 {
		in.Cwd = p.WorkspaceRoots[0]
	}
	if p.TranscriptPath != nil {
		in.SessionRef = *p.TranscriptPath
	}
	if in.SessionRef == "" && in.SessionID != "" && in.Cwd != "" {
		in.SessionRef = a.transcriptFor(in.Cwd, in.SessionID)
	}
	if p.SubagentID != "" {
		in.AgentID = p.SubagentID
	}
	if p.SubagentType != "" {
		in.SubagentType = p.SubagentType
	}
	if p.ToolCallID != "" && in.ToolUseID == "" {
		in.ToolUseID = p.ToolCallID
	}
	if p.Summary != nil && hookType == agent.HookSubagentStop {
		in.LastAssistantMessage, in.HasLastAssistantMessage = *p.Summary, true
	}
	if hookType == agent.HookPostToolUse && p.FilePath != "" {
		in.ToolName = "Write"
		in.ToolInput, _ = json.Marshal(map[string]string{"path": p.FilePath})
	}
	return in, nil
}

// transcriptFor returns the transcript of a conversation in workspace: the
// CLI's <dir>/<id>.jsonl, or the editor's <dir>/<id>/<id>.jsonl when that
// one exists.
func (a *Agent) transcriptFor(workspace, id string) string {
	dir, err := a.GetSessionDir(workspace)
	if err != nil || !validID(id) {
		return ""
	}
	nested := filepath.Join(dir, id, id+".jsonl")
	if _, err := os.Stat(nested); err == nil {
		return nested
	}
	return filepath.Join(dir, id+".jsonl")
}
