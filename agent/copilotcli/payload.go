package copilotcli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/entirecli/entire/agent"
)

// maxPayload bounds what a hook reads from stdin.
const maxPayload = 64 << 20

// payload is a Copilot CLI hook payload: camelCase, with no event name.
type payload struct {
	SessionID      string          `json:"sessionId"`
	Timestamp      *int64          `json:"timestamp"`
	Cwd            string          `json:"cwd"`
	Source         string          `json:"source"`
	InitialPrompt  string          `json:"initialPrompt"`
	Prompt         string          `json:"prompt"`
	ToolName       string          `json:"toolName"`
	ToolArgs       json.RawMessage `json:"toolArgs"`
	ToolResult     json.RawMessage `json:"toolResult"`
	TranscriptPath string          `json:"transcriptPath"`
	StopReason     string          `json:"stopReason"`
	StopHookActive bool            `json:"stop_hook_active"`
	Reason         string          `json:"reason"`
}

// ParseHookInput parses a Copilot CLI payload. Only agentStop names the
// transcript; for the other events it is the events file of the session
// where Copilot keeps it (TranscriptPath), so that a prompt's turn starts
// from the right place. The event name is the one the verb stands for.
func (a *Agent) ParseHookInput(hookType agent.HookType, r io.Reader) (*agent.HookInput, error) {
	data, tooLarge, err := agent.ReadAtMost(r, maxPayload)
	if err != nil {
		return nil, fmt.Errorf("copilot-cli %s: read hook input: %w", hookType, err)
	}
	if tooLarge {
		return nil, fmt.Errorf("copilot-cli %s: more than %d bytes: %w", hookType, maxPayload, agent.ErrMalformedInput)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, agent.ErrEmptyInput
	}
	var raw map[string]any
	var p payload
	if data[0] != '{' || json.Unmarshal(data, &raw) != nil || json.Unmarshal(data, &p) != nil {
		return nil, fmt.Errorf("copilot-cli %s: %w: not a JSON object of the expected fields", hookType, agent.ErrMalformedInput)
	}
	in := &agent.HookInput{
		HookType: hookType, SessionID: p.SessionID, SessionRef: p.TranscriptPath, Cwd: p.Cwd, EventName: eventOf(hookType),
		UserPrompt: p.Prompt, ToolName: p.ToolName, ToolInput: nonNull(p.ToolArgs), ToolResponse: nonNull(p.ToolResult),
		StopHookActive: p.StopHookActive, Source: p.Source, Reason: p.Reason, RawData: raw,
	}
	if p.Timestamp != nil {
		in.Timestamp = time.UnixMilli(*p.Timestamp)
	}
	if in.SessionRef == "" && p.SessionID != "" {
		if path, err := a.TranscriptPath(p.SessionID); err == nil {
			in.SessionRef = path
		}
	}
	return in, nil
}

func nonNull(b json.RawMessage) []byte {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	return b
}

// TranscriptPath returns the events file of a session:
// <copilot home>/session-state/<id>/events.jsonl. An ID that cannot name
// a directory is an error.
func (a *Agent) TranscriptPath(sessionID string) (string, error) {
	if err := validID(sessionID); err != nil {
		return "", err
	}
	home, err := a.home()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "session-state", sessionID, eventsFile), nil
}
