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
	end := bytes.LastIndexByte(content, '\n') + 1
	p := agent.Position{Entries: bytes.Count(content[:end], []byte{'\n'}), Offset: int64(end)}
	rest := content[:max(end-1, 0)]
	for len(rest) > 0 && p.LastID == "" {
		line := rest
		if i := bytes.LastIndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[i+1:], rest[:i]
		} else {
			rest = nil
		}
		if !bytes.Contains(line, []byte(`"uuid"`)) {
			continue
		}
		var e entry
		decodeEntries(line, &e, func(e *entry) {
			if e.UUID != "" {
				p.LastID = e.UUID
			}
		})
	}
	return p
}
