package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// TmpDir is the directory of transient per-turn files, relative to the
// repository root.
const TmpDir = ".entire/tmp"

// ValidateToolUseID checks that a tool use ID or agent ID matches
// ^[a-zA-Z0-9_-]+$ (SPEC 3.5) before it is used in a path. The error wraps
// ErrInvalidID.
func ValidateToolUseID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: empty tool use id", ErrInvalidID)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return fmt.Errorf("%w: tool use id %q", ErrInvalidID, id)
		}
	}
	return nil
}

// PrePrompt is .entire/tmp/pre-prompt-<session>.json, written at turn start
// and deleted at turn end (SPEC 3.4).
type PrePrompt struct {
	SessionID string `json:"session_id"`
	// Timestamp is written as RFC 3339 in UTC.
	Timestamp      time.Time `json:"timestamp"`
	UntrackedFiles []string  `json:"untracked_files"`
	// StartMessageIndex is the Gemini message index at turn start.
	StartMessageIndex int `json:"start_message_index,omitempty"`
	// LastTranscriptIdentifier is the last UUID / message ID at turn start.
	LastTranscriptIdentifier string `json:"last_transcript_identifier,omitempty"`
	// StepTranscriptStart is the Claude transcript line count at turn
	// start. ReadPrePrompt migrates the deprecated
	// last_transcript_line_count into it.
	StepTranscriptStart int `json:"step_transcript_start,omitempty"`
	// Head (extension) is HEAD at turn start.
	Head string `json:"head,omitempty"`
	// Dirty (extension) is the state at turn start of each path git status
	// reported, which the turn end compares with the work tree to find
	// what the turn changed. Set only with Head.
	Dirty map[string]PathState `json:"dirty,omitempty"`
}

// PathState is a work-tree path as git would record it: its mode (0 when
// the file is absent) and blob hash.
type PathState struct {
	Mode uint32 `json:"mode,omitempty"`
	Hash string `json:"hash,omitempty"`
}

// PreTask is .entire/tmp/pre-task-<tool_use_id>.json, written when a
// subagent task starts (SPEC 3.4).
type PreTask struct {
	ToolUseID      string    `json:"tool_use_id"`
	Timestamp      time.Time `json:"timestamp"`
	UntrackedFiles []string  `json:"untracked_files"`
}

// PrePromptPath returns the pre-prompt file path of sessionID (not
// validated).
func PrePromptPath(repoRoot, sessionID string) string {
	return filepath.Join(repoRoot, TmpDir, "pre-prompt-"+sessionID+".json")
}

// PreTaskPath returns the pre-task file path of toolUseID (not validated).
func PreTaskPath(repoRoot, toolUseID string) string {
	return filepath.Join(repoRoot, TmpDir, "pre-task-"+toolUseID+".json")
}

// WritePrePrompt writes p atomically to its file under repoRoot (directory
// created 0750, file 0600). The timestamp is stored in UTC. p.SessionID must
// pass ValidateID.
func WritePrePrompt(repoRoot string, p *PrePrompt) error {
	if err := ValidateID(p.SessionID); err != nil {
		return fmt.Errorf("write pre-prompt state: %w", err)
	}
	c := *p
	c.Timestamp = c.Timestamp.UTC()
	return writeTransient(PrePromptPath(repoRoot, p.SessionID), &c)
}

// ReadPrePrompt reads the pre-prompt file of sessionID. A missing file
// returns an error wrapping ErrNotFound.
func ReadPrePrompt(repoRoot, sessionID string) (*PrePrompt, error) {
	if err := ValidateID(sessionID); err != nil {
		return nil, fmt.Errorf("read pre-prompt state: %w", err)
	}
	var raw struct {
		PrePrompt
		LegacyLineCount int `json:"last_transcript_line_count"`
	}
	if err := readTransient(PrePromptPath(repoRoot, sessionID), &raw); err != nil {
		return nil, fmt.Errorf("read pre-prompt state %s: %w", sessionID, err)
	}
	p := raw.PrePrompt
	if p.StepTranscriptStart == 0 && raw.LegacyLineCount > 0 {
		p.StepTranscriptStart = raw.LegacyLineCount
	}
	return &p, nil
}

// DeletePrePrompt removes the pre-prompt file of sessionID; a missing file
// is not an error.
func DeletePrePrompt(repoRoot, sessionID string) error {
	if err := ValidateID(sessionID); err != nil {
		return fmt.Errorf("delete pre-prompt state: %w", err)
	}
	return removeIfExists(PrePromptPath(repoRoot, sessionID))
}

// WritePreTask writes p atomically to its file under repoRoot. p.ToolUseID
// must pass ValidateToolUseID.
func WritePreTask(repoRoot string, p *PreTask) error {
	if err := ValidateToolUseID(p.ToolUseID); err != nil {
		return fmt.Errorf("write pre-task state: %w", err)
	}
	c := *p
	c.Timestamp = c.Timestamp.UTC()
	return writeTransient(PreTaskPath(repoRoot, p.ToolUseID), &c)
}

// ReadPreTask reads the pre-task file of toolUseID. A missing file returns
// an error wrapping ErrNotFound.
func ReadPreTask(repoRoot, toolUseID string) (*PreTask, error) {
	if err := ValidateToolUseID(toolUseID); err != nil {
		return nil, fmt.Errorf("read pre-task state: %w", err)
	}
	var p PreTask
	if err := readTransient(PreTaskPath(repoRoot, toolUseID), &p); err != nil {
		return nil, fmt.Errorf("read pre-task state %s: %w", toolUseID, err)
	}
	return &p, nil
}

// DeletePreTask removes the pre-task file of toolUseID; a missing file is
// not an error.
func DeletePreTask(repoRoot, toolUseID string) error {
	if err := ValidateToolUseID(toolUseID); err != nil {
		return fmt.Errorf("delete pre-task state: %w", err)
	}
	return removeIfExists(PreTaskPath(repoRoot, toolUseID))
}

func writeTransient(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	_, err = writeAtomic(path, append(data, '\n'), 0o600, true)
	return err
}

func readTransient(path string, v any) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	return nil
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}
