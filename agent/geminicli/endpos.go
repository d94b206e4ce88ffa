package geminicli

import (
	"bytes"

	"github.com/entirecli/entire/agent"
)

var _ agent.TranscriptEnder = (*Agent)(nil)

// EndPosition returns the position a scan of the whole transcript ends at:
// for a single JSON document, its message count and last message id (the
// document is decoded: it has no other positions); for JSONL, the complete
// lines, the offset just past the last one and the id of the last message
// record (lines are decoded only from the end until one is a message).
// Content that is neither gives the zero Position.
func (a *Agent) EndPosition(content []byte) agent.Position {
	if DetectFormat(content) == FormatJSON {
		an, _, err := analyzeDocument(content, agent.Position{})
		if err != nil {
			return agent.Position{}
		}
		return an.To
	}
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
		messageRecords(line, func(m *message) { p.LastID = m.ID })
	}
	return p
}
