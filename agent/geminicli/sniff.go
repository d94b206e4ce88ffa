package geminicli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/entirecli/entire/agent"
)

var _ agent.TranscriptSniffer = (*Agent)(nil)

// SniffTranscript accepts the first line of a Gemini CLI transcript in
// either container (see DetectFormat): "{" alone, which opens an indented
// JSON document, or one JSON object (a compact document, or the header or
// a record of the JSONL form).
func (a *Agent) SniffTranscript(line []byte) error {
	line = bytes.TrimSpace(line)
	if string(line) == "{" {
		return nil
	}
	if len(line) == 0 || line[0] != '{' {
		return errors.New("first line is not a JSON object")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return fmt.Errorf("first line is not a JSON object: %w", err)
	}
	return nil
}
