package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/entirecli/entire/strategy/rewind"
)

// A dry run and the picker's warnings print the commit subject, paths and
// session IDs of a point that may come from a teammate's push: none
// reaches the terminal raw.
func TestPrintPlanEscapesStoredText(t *testing.T) {
	plan := &rewind.Plan{
		Point:       rewind.Point{ID: "0123456789abcdef0123456789abcdef01234567", Message: "fix \x1b]0;pwned\x07"},
		Changes:     []rewind.FileChange{{Path: "a\x1b[2Jb", Kind: rewind.Added}},
		Kept:        []string{"k\rx"},
		Transcripts: []rewind.Transcript{{SessionID: "s\x1b[31m", Path: "/p\u202e"}},
	}
	var b bytes.Buffer
	printPlan(&b, plan)
	printResume(&b, []rewind.Transcript{{ResumeCommand: "claude -r s\x1b[31m", Prompt: "p\x1b[0m"}})
	warnPaths(&b, "Warning: The following files will be DELETED:", []string{"d\x1b[2Je"})
	if out := b.String(); strings.ContainsAny(out, "\x1b\x07\r\u202e") {
		t.Fatalf("raw control characters printed: %q", out)
	}
}
