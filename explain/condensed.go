package explain

import (
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/condensed"
)

// condensedScope returns the condensed entries a slot stores for its
// scope; false when it stores none, or ones that do not describe its
// stored transcript and scope.
func condensedScope(s *checkpoint.Session) ([]Entry, bool) {
	var c condensed.Summary
	if err := s.ReadJSON(condensed.File, &c); err != nil || c.Version != condensed.Version || c.Start != Scope(s.Metadata) {
		return nil, false
	}
	if m := s.Metadata; m.CheckpointTranscriptStart == 0 && m.TranscriptLinesAtStart > 0 {
		return nil, false // a legacy scope, which depends on the transcript's length
	}
	if c.ContentHash == "" || s.ContentHash() != c.ContentHash {
		return nil, false
	}
	return c.Entries, true
}
