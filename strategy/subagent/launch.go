package subagent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/atomicfile"
)

// Launch is a subagent started in the background (Claude Code 2.1.332's
// Agent tool returns at once): what its task checkpoint needs, kept from
// the tool call until the subagent stops, which may be after the parent's
// turn ended.
type Launch struct {
	ToolUseID    string          `json:"tool_use_id"`
	AgentID      string          `json:"agent_id"`
	SubagentType string          `json:"subagent_type,omitempty"`
	Description  string          `json:"description,omitempty"`
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
}

// launchPath validates the IDs and returns the launch record's file,
// beside the pending task records (List skips it: its key has a dot).
func (p *Pending) launchPath(sessionID, agentID string) (string, error) {
	if err := session.ValidateID(sessionID); err != nil {
		return "", err
	}
	if err := session.ValidateToolUseID(agentID); err != nil {
		return "", err
	}
	return filepath.Join(p.dir, sessionID, agentID+".launch.json"), nil
}

// PutLaunch records a background launch under the subagent's ID.
func (p *Pending) PutLaunch(sessionID string, l Launch) error {
	path, err := p.launchPath(sessionID, l.AgentID)
	if err != nil {
		return fmt.Errorf("record background subagent: %w", err)
	}
	if err := session.ValidateToolUseID(l.ToolUseID); err != nil {
		return fmt.Errorf("record background subagent: %w", err)
	}
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return fmt.Errorf("record background subagent %s: %w", l.AgentID, err)
	}
	return nil
}

// TakeLaunch returns and removes the background launch of agentID; ok is
// false when there is none (a foreground subagent). Two hooks taking the
// same launch at once: one of them gets it.
func (p *Pending) TakeLaunch(sessionID, agentID string) (l Launch, ok bool, err error) {
	path, err := p.launchPath(sessionID, agentID)
	if err != nil {
		return Launch{}, false, fmt.Errorf("read background subagent: %w", err)
	}
	// Rename first, so that only one taker reads it.
	taken := path + ".taken"
	if err := os.Rename(path, taken); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Launch{}, false, nil
		}
		return Launch{}, false, fmt.Errorf("read background subagent %s: %w", agentID, err)
	}
	defer os.Remove(taken)
	data, err := os.ReadFile(taken)
	if err != nil {
		return Launch{}, false, fmt.Errorf("read background subagent %s: %w", agentID, err)
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return Launch{}, false, fmt.Errorf("read background subagent %s: %w", agentID, err)
	}
	if session.ValidateToolUseID(l.ToolUseID) != nil || l.AgentID != agentID {
		return Launch{}, false, fmt.Errorf("read background subagent %s: bad record", agentID)
	}
	return l, true, nil
}
