package claudecode

import (
	"bytes"

	"github.com/entirecli/entire/agent"
)

var _ agent.TranscriptEnder = (*Agent)(nil)

// EndPosition returns the position at the end of a JSONL transcript's last
// complete line: the line count, the byte offset just past that line's
// newline and the last entry's uuid, as ScanTranscript from the start
// would end. It decodes lines only from the end until one has a uuid.
func (a *Agent) EndPosition(content []byte) agent.Position {
	var e entry
	return agent.JSONLEnd(content, func(line []byte) string {
		if !bytes.Contains(line, []byte(`"uuid"`)) {
			return ""
		}
		id := ""
		decodeEntries(line, &e, func(e *entry) {
			if e.UUID != "" {
				id = e.UUID
			}
		})
		return id
	})
}
