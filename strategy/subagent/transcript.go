package subagent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/entirecli/entire/agent"
)

// tailWindow is how much of a transcript's end LastMessage reads.
const tailWindow = 256 << 10

// LastMessage returns the text of the last assistant message of a Claude
// Code JSONL transcript (a subagent's agent-<id>.jsonl): the text items of
// the trailing assistant lines that share the last message ID, in order.
// It reads only the file's last 256 KiB, so a message longer than that
// comes back cut at its start. A missing path or a transcript without an
// assistant text gives "" and an error only for I/O failures other than a
// missing file.
func LastMessage(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	f, err := agent.OpenTranscript(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read subagent transcript: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("read subagent transcript: %w", err)
	}
	from := max(0, fi.Size()-tailWindow)
	buf := make([]byte, fi.Size()-from)
	if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read subagent transcript %s: %w", path, err)
	}
	lines := bytes.Split(buf, []byte("\n"))
	var texts []string
	msgID := ""
	for i := len(lines) - 1; i >= 0; i-- {
		line := bytes.TrimSpace(lines[i])
		if !bytes.Contains(line, []byte(`"assistant"`)) {
			continue
		}
		var l struct {
			Type    string `json:"type"`
			Message struct {
				ID      string          `json:"id"`
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &l) != nil || l.Type != "assistant" {
			continue
		}
		if len(texts) > 0 && (l.Message.ID == "" || l.Message.ID != msgID) {
			break
		}
		if t := contentText(l.Message.Content); t != "" {
			texts = append(texts, t)
			msgID = l.Message.ID
		}
	}
	for i, j := 0, len(texts)-1; i < j; i, j = i+1, j-1 {
		texts[i], texts[j] = texts[j], texts[i]
	}
	return strings.Join(texts, "\n"), nil
}
