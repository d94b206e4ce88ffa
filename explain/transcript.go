package explain

import (
	"io"
	"strings"

	"github.com/entirecli/entire/checkpoint/condensed"
)

// Role is the speaker of a transcript entry.
type Role = condensed.Role

// Roles of transcript entries.
const (
	RoleUser      = condensed.RoleUser
	RoleAssistant = condensed.RoleAssistant
	RoleTool      = condensed.RoleTool
)

// Entry is one line of a condensed transcript (see condensed.Entry).
type Entry = condensed.Entry

// ParseTranscript returns the condensed entries of a stored transcript
// from position start on, read by the agent that recognises it, else the
// default agent (see condensed.ParseTranscript).
func ParseTranscript(content []byte, start int) ([]Entry, error) {
	return condensed.ParseTranscript(nil, content, start)
}

// WriteTranscript writes entries one per line, with a blank line before
// every user or assistant entry but the first, so that a turn reads as a
// block.
func WriteTranscript(w io.Writer, entries []Entry) error {
	var b strings.Builder
	for i, e := range entries {
		if i > 0 && e.Role != RoleTool {
			b.WriteByte('\n')
		}
		b.WriteString(e.Line())
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// oneLine collapses whitespace runs (newlines included) into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Truncate shortens s to at most n runes, ending in "..." when cut, after
// collapsing it to one line.
func Truncate(s string, n int) string {
	s = oneLine(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 3 {
		return string(r[:n])
	}
	return string(r[:n-3]) + "..."
}
