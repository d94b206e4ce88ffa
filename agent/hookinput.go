package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// maxHookInput bounds how much stdin a hook reads (tool responses of large
// Write calls can be several MB; 64 MiB is far beyond any real payload).
const maxHookInput = 64 << 20

// hookPayload is the union of the stdin fields Claude Code and Gemini CLI
// send to hooks (AGENT-HOOKS.md A3/A4, B4/B5).
type hookPayload struct {
	SessionID            string          `json:"session_id"`
	TranscriptPath       string          `json:"transcript_path"`
	Cwd                  string          `json:"cwd"`
	HookEventName        string          `json:"hook_event_name"`
	Timestamp            string          `json:"timestamp"`
	Prompt               string          `json:"prompt"`
	ToolName             string          `json:"tool_name"`
	ToolUseID            string          `json:"tool_use_id"`
	ToolInput            json.RawMessage `json:"tool_input"`
	ToolResponse         json.RawMessage `json:"tool_response"`
	AgentID              string          `json:"agent_id"`
	AgentType            string          `json:"agent_type"`
	AgentTranscriptPath  string          `json:"agent_transcript_path"`
	LastAssistantMessage string          `json:"last_assistant_message"`
	StopHookActive       bool            `json:"stop_hook_active"`
	Source               string          `json:"source"`
	Reason               string          `json:"reason"`
}

// DecodeHookInput reads one hook payload (a JSON object) from r and
// normalizes it into a HookInput of the given type. It is the shared parser
// behind the agents' ParseHookInput. Empty (or all-whitespace) input gives
// ErrEmptyInput; anything that is not a single JSON object, or a known field
// of the wrong JSON type, gives an error wrapping ErrMalformedInput. Unknown
// fields are ignored (and kept in RawData). It never panics.
func DecodeHookInput(hookType HookType, r io.Reader) (*HookInput, error) {
	data, tooLarge, err := readHookPayload(r, maxHookInput)
	if err != nil {
		return nil, fmt.Errorf("read hook input: %w", err)
	}
	if tooLarge {
		return nil, fmt.Errorf("read hook input: more than %d bytes: %w", maxHookInput, ErrMalformedInput)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, ErrEmptyInput
	}
	if data[0] != '{' {
		return nil, fmt.Errorf("parse hook input: %w: not a JSON object", ErrMalformedInput)
	}
	data, toolInput, toolResponse := setAsideLargeTool(data)
	var raw map[string]interface{}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("parse hook input: %w: %v", ErrMalformedInput, err)
	}
	var p hookPayload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("parse hook input: %w: %v", ErrMalformedInput, err)
	}
	if toolInput != nil {
		p.ToolInput = toolInput
	}
	if toolResponse != nil {
		p.ToolResponse = toolResponse
	}
	in := &HookInput{
		HookType:                hookType,
		SessionID:               p.SessionID,
		SessionRef:              p.TranscriptPath,
		Cwd:                     p.Cwd,
		EventName:               p.HookEventName,
		UserPrompt:              p.Prompt,
		ToolName:                p.ToolName,
		ToolUseID:               p.ToolUseID,
		ToolInput:               nullToNil(p.ToolInput),
		ToolResponse:            nullToNil(p.ToolResponse),
		AgentID:                 p.AgentID,
		SubagentType:            p.AgentType,
		AgentTranscriptPath:     p.AgentTranscriptPath,
		LastAssistantMessage:    p.LastAssistantMessage,
		HasLastAssistantMessage: hasKey(raw, "last_assistant_message"),
		StopHookActive:          p.StopHookActive,
		Source:                  p.Source,
		Reason:                  p.Reason,
		RawData:                 raw,
	}
	if p.Timestamp != "" {
		if t, err := time.Parse(time.RFC3339Nano, p.Timestamp); err == nil {
			in.Timestamp = t
		}
	}
	return in, nil
}

// largeMember is the size from which a payload's tool_input or
// tool_response is set aside by setAsideLargeTool.
const largeMember = 1 << 20

// setAsideLargeTool returns the payload data without its tool_input and
// tool_response members when they are longer than 1 MiB, and those
// members' values as they lie in data (not copied): a tool result of tens
// of megabytes is then neither decoded into RawData nor copied into a
// json.RawMessage, and is held once. Smaller payloads, and data that is
// not a valid JSON object, come back as they are.
func setAsideLargeTool(data []byte) (rest, toolInput, toolResponse []byte) {
	if len(data) <= largeMember || !validJSON(data) {
		return data, nil, nil
	}
	members, ok := objectMembers(data)
	if !ok {
		return data, nil, nil
	}
	large := func(m memberSpan) bool {
		return (m.key == "tool_input" || m.key == "tool_response") && m.end-m.start > largeMember
	}
	// The last of a repeated key wins, as in encoding/json.
	last := map[string]int{}
	for i, m := range members {
		last[m.key] = i
	}
	setAside := false
	for _, i := range last {
		setAside = setAside || large(members[i])
	}
	if !setAside {
		return data, nil, nil
	}
	rest = append(make([]byte, 0, 1024), '{')
	for i, m := range members {
		if last[m.key] != i {
			continue
		}
		if large(m) {
			if m.key == "tool_input" {
				toolInput = data[m.start:m.end]
			} else {
				toolResponse = data[m.start:m.end]
			}
			continue
		}
		if len(rest) > 1 {
			rest = append(rest, ',')
		}
		k, _ := json.Marshal(m.key)
		rest = append(append(append(rest, k...), ':'), data[m.start:m.end]...)
	}
	return append(rest, '}'), toolInput, toolResponse
}

// hasKey reports whether the payload has the key with a non-null value.
func hasKey(raw map[string]interface{}, key string) bool {
	v, ok := raw[key]
	return ok && v != nil
}

func nullToNil(m json.RawMessage) []byte {
	if len(m) == 0 || string(m) == "null" {
		return nil
	}
	return []byte(m)
}
