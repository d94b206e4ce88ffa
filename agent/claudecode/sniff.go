package claudecode

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/entirecli/entire/agent"
)

var _ agent.TranscriptSniffer = (*Agent)(nil)

// SniffTranscript accepts the first line of a Claude Code JSONL transcript:
// a JSON object with a string "type" (user, assistant, summary,
// file-history-snapshot, queue-operation, ...), as every line Claude Code
// writes has.
func (a *Agent) SniffTranscript(line []byte) error {
	var head struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return fmt.Errorf("first line is not a JSON object: %w", err)
	}
	if head.Type == nil || *head.Type == "" {
		return errors.New(`first line has no "type"`)
	}
	return nil
}
