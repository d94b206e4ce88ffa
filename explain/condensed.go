package explain

import (
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/condensed"
)

// condensedScope returns the condensed entries a slot stores for its
// scope; false when it stores none, or ones that do not describe its
// stored transcript and scope, or a file that is not valid (see
// condensed.Summary.Valid) or larger than condensed.MaxSize.
func condensedScope(s *checkpoint.Session) ([]Entry, bool) {
	if m := s.Metadata; m.CheckpointTranscriptStart == 0 && m.TranscriptLinesAtStart > 0 {
		return nil, false // a legacy scope, which depends on the transcript's length
	}
	var c condensed.Summary
	if err := s.ReadJSONAtMost(condensed.File, &c, condensed.MaxSize); err != nil || !c.Valid() || c.Start != Scope(s.Metadata) {
		return nil, false
	}
	if c.ContentHash == "" || s.ContentHash() != c.ContentHash {
		return nil, false
	}
	return c.Entries, true
}
