package explain

import (
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/condensed"
)

// CondensedFile is the session slot file of the condensed transcript of
// the checkpoint's scope (see condensed.File).
const CondensedFile = condensed.File

// Condensed is the content of CondensedFile (see condensed.Summary).
type Condensed = condensed.Summary

// condensedScope returns the condensed entries a slot stores for its
// scope; false when it stores none, or ones that do not describe its
// stored transcript and scope.
func condensedScope(s *checkpoint.Session) ([]Entry, bool) {
	var c Condensed
	if err := s.ReadJSON(CondensedFile, &c); err != nil || c.Version != condensed.Version || c.Start != Scope(s.Metadata) {
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
