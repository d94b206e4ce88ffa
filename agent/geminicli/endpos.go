package geminicli

import (
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
	return agent.JSONLEnd(content, func(line []byte) string {
		id := ""
		messageRecords(line, func(m *message) { id = m.ID })
		return id
	})
}
