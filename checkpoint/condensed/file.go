package condensed

import "encoding/json"

// File is the file of a session slot that holds the condensed
// transcript of the checkpoint's scope, computed at condensation: the
// default checkpoint view shows it instead of reading the whole stored
// transcript. It is an addition Entire 0.4.x readers ignore; slots
// without it (0.4.x checkpoints, other writers) are explained from the
// stored transcript.
const File = "condensed.json"

// Version is the version of File this package writes
// and reads.
const Version = 1

// MaxSize bounds File: a condensation writes none larger (the scope is
// then explained from the stored transcript), and a reader reads none
// larger (the slot may come from anyone's push).
const MaxSize = 8 << 20

// Summary is the content of File.
type Summary struct {
	Version int `json:"version"`
	// ContentHash is the content hash of the stored transcript the
	// entries were computed from (content_hash.txt): a transcript
	// replaced since, by a writer that does not know this file, makes it
	// stale, and it is not used.
	ContentHash string `json:"content_hash"`
	// Start is the scope's start (checkpoint_transcript_start).
	Start int `json:"start"`
	// Entries are the condensed entries of the scope, redacted.
	Entries []Entry `json:"entries"`
}

// Encode returns the File content for the entries of
// the scope starting at start of the stored transcript with content hash
// contentHash.
func Encode(contentHash string, start int, entries []Entry) ([]byte, error) {
	if entries == nil {
		entries = []Entry{}
	}
	return json.Marshal(Summary{Version: Version, ContentHash: contentHash, Start: start, Entries: entries})
}

// Scope returns the start of a session's checkpoint scope (SPEC 4.3) from
// its metadata's checkpoint_transcript_start and
// transcript_lines_at_start.
func Scope(checkpointTranscriptStart, transcriptLinesAtStart int) int {
	if checkpointTranscriptStart > 0 {
		return checkpointTranscriptStart
	}
	return transcriptLinesAtStart
}

// Valid reports whether s is a File this package writes: its version is
// Version and every entry has one of the three roles, a tool name exactly
// when it is a RoleTool entry. A File read from a slot that is not valid
// is not shown: the scope is explained from the stored transcript.
func (s *Summary) Valid() bool {
	if s.Version != Version {
		return false
	}
	for _, e := range s.Entries {
		switch e.Role {
		case RoleUser, RoleAssistant:
			if e.Tool != "" {
				return false
			}
		case RoleTool:
			if e.Tool == "" {
				return false
			}
		default:
			return false
		}
	}
	return true
}
