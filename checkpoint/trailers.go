package checkpoint

import (
	"regexp"
	"strings"
)

// Trailer keys (SPEC 3.8).
const (
	// TrailerCheckpoint links a commit on a working branch to a committed
	// checkpoint: "Entire-Checkpoint: <12-hex id>".
	TrailerCheckpoint = "Entire-Checkpoint"
	// TrailerSession names the agent session of a shadow or metadata commit;
	// it may appear several times.
	TrailerSession = "Entire-Session"
	// TrailerStrategy names the strategy that wrote a commit.
	TrailerStrategy = "Entire-Strategy"
	// TrailerMetadata is the session metadata dir of a shadow step commit,
	// ".entire/metadata/<session-id>" (empty for carry-forward commits).
	TrailerMetadata = "Entire-Metadata"
	// TrailerMetadataTask is the task metadata dir or file of a task commit.
	TrailerMetadataTask = "Entire-Metadata-Task"
	// TrailerAgent is the agent type label ("Claude Code", "Gemini CLI").
	TrailerAgent = "Entire-Agent"
	// TrailerEphemeralBranch names the shadow branch a checkpoint was
	// condensed from.
	TrailerEphemeralBranch = "Ephemeral-branch"
	// TrailerBaseCommit is parsed (40 hex) but not written.
	TrailerBaseCommit = "Base-Commit"
	// TrailerCondensation is a legacy key, parsed only.
	TrailerCondensation = "Entire-Condensation"
	// TrailerSourceRef is a "<branch>@<sha12>" reference (see SourceRef).
	TrailerSourceRef = "Entire-Source-Ref"
	// TrailerRewoundTo marks a shadow step that records a rewind (or its
	// undo) instead of a turn: the step it restored. This project's own.
	TrailerRewoundTo = "Entire-Rewound-To"
)

// Trailer is one "Key: value" line of a commit message's trailer block.
type Trailer struct {
	Key   string
	Value string
}

// Trailers is the ordered trailer block of a commit message.
type Trailers []Trailer

var trailerLine = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9-]*):(.*)$`)

// ParseTrailers returns the trailers of msg: the "Key: value" lines that
// start a line in the last paragraph of the message (git's trailer block),
// ignoring "#" comment lines. A key with an empty value keeps an empty value;
// it never takes the next line as its value (the original's regex did).
func ParseTrailers(msg string) Trailers {
	lines := strings.Split(strings.ReplaceAll(msg, "\r\n", "\n"), "\n")
	var kept []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "#") {
			kept = append(kept, l)
		}
	}
	end := len(kept)
	for end > 0 && strings.TrimSpace(kept[end-1]) == "" {
		end--
	}
	start := end
	for start > 0 && strings.TrimSpace(kept[start-1]) != "" {
		start--
	}
	var out Trailers
	for _, l := range kept[start:end] {
		if m := trailerLine.FindStringSubmatch(l); m != nil {
			out = append(out, Trailer{Key: m[1], Value: strings.TrimSpace(m[2])})
		}
	}
	return out
}

// Get returns the value of the first trailer with key (case-insensitive, as
// git compares trailer keys) and whether there was one.
func (t Trailers) Get(key string) (string, bool) {
	for _, tr := range t {
		if strings.EqualFold(tr.Key, key) {
			return tr.Value, true
		}
	}
	return "", false
}

// All returns every value of key, in order, without duplicates.
func (t Trailers) All(key string) []string {
	var out []string
	seen := map[string]bool{}
	for _, tr := range t {
		if strings.EqualFold(tr.Key, key) && !seen[tr.Value] {
			seen[tr.Value] = true
			out = append(out, tr.Value)
		}
	}
	return out
}

// Checkpoint returns the checkpoint ID of an Entire-Checkpoint trailer whose
// value is exactly a valid ID.
func (t Trailers) Checkpoint() (ID, bool) {
	for _, v := range t.All(TrailerCheckpoint) {
		if id, err := ParseID(v); err == nil {
			return id, true
		}
	}
	return "", false
}

// Sessions returns the Entire-Session values, de-duplicated.
func (t Trailers) Sessions() []string { return t.All(TrailerSession) }

// BaseCommit returns a Base-Commit value that is a full 40-hex hash.
func (t Trailers) BaseCommit() (string, bool) {
	v, ok := t.Get(TrailerBaseCommit)
	if !ok || !fullHash.MatchString(v) {
		return "", false
	}
	return v, true
}

var fullHash = regexp.MustCompile(`^[0-9a-f]{40}$`)

// String formats the trailers one per line, "Key: value" ("Key: " when the
// value is empty), each line ending in a newline.
func (t Trailers) String() string {
	var b strings.Builder
	for _, tr := range t {
		b.WriteString(tr.Key)
		b.WriteString(": ")
		b.WriteString(tr.Value)
		b.WriteByte('\n')
	}
	return b.String()
}

// CheckpointOf returns the checkpoint ID a commit message links to: from
// its trailer block, else from an "Entire-Checkpoint: <id>" line anywhere
// outside "#" comments (another tool's commit-msg hook may have appended a
// paragraph after our trailer, as SPEC 3.8's anywhere-in-the-message
// parsing allowed).
func CheckpointOf(msg string) (ID, bool) {
	if id, ok := ParseTrailers(msg).Checkpoint(); ok {
		return id, true
	}
	for _, line := range strings.Split(msg, "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		if m := trailerLine.FindStringSubmatch(line); m != nil && strings.EqualFold(m[1], TrailerCheckpoint) {
			if id, err := ParseID(strings.TrimSpace(m[2])); err == nil {
				return id, true
			}
		}
	}
	return "", false
}

// SourceRef formats an Entire-Source-Ref value, "<branch>@<sha12>".
func SourceRef(branch, commit string) string {
	if len(commit) > 12 {
		commit = commit[:12]
	}
	return branch + "@" + commit
}
