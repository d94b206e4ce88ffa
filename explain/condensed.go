package explain

import (
	"encoding/json"
	"strings"

	"github.com/entirecli/entire/checkpoint"
)

// CondensedFile is the file of a session slot that holds the condensed
// transcript of the checkpoint's scope, computed at condensation: the
// default checkpoint view shows it instead of reading the whole stored
// transcript. It is an addition Entire 0.4.x readers ignore; slots
// without it (0.4.x checkpoints, other writers) are explained from the
// stored transcript.
const CondensedFile = "condensed.json"

// condensedVersion is the version of CondensedFile this package writes
// and reads.
const condensedVersion = 1

// Condensed is the content of CondensedFile.
type Condensed struct {
	Version int `json:"version"`
	// ContentHash is the content hash of the stored transcript the
	// entries were computed from (content_hash.txt): a transcript
	// replaced since, by a writer that does not know this file, makes it
	// stale, and it is not used.
	ContentHash string `json:"content_hash"`
	// Start is the scope's start (Scope of the slot's metadata).
	Start int `json:"start"`
	// Entries are the condensed entries of the scope, redacted.
	Entries []Entry `json:"entries"`
}

// EncodeCondensed returns the CondensedFile content for the entries of
// the scope starting at start of the stored transcript with content hash
// contentHash.
func EncodeCondensed(contentHash string, start int, entries []Entry) ([]byte, error) {
	if entries == nil {
		entries = []Entry{}
	}
	return json.Marshal(Condensed{Version: condensedVersion, ContentHash: contentHash, Start: start, Entries: entries})
}

// condensedScope returns the condensed entries a slot stores for its
// scope; false when it stores none, or ones that do not describe its
// stored transcript and scope.
func condensedScope(s *checkpoint.Session) ([]Entry, bool) {
	var c Condensed
	if err := s.ReadJSON(CondensedFile, &c); err != nil || c.Version != condensedVersion || c.Start != Scope(s.Metadata) {
		return nil, false
	}
	if m := s.Metadata; m.CheckpointTranscriptStart == 0 && m.TranscriptLinesAtStart > 0 {
		return nil, false // a legacy scope, which depends on the transcript's length
	}
	hash, err := s.File(checkpoint.ContentHashFile)
	if err != nil || c.ContentHash == "" || strings.TrimSpace(string(hash)) != c.ContentHash {
		return nil, false
	}
	return c.Entries, true
}
