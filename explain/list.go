package explain

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint"
)

// ListGroup is one checkpoint of the list view: a committed checkpoint with
// the commits that link to it, or the temporary checkpoints of one session.
type ListGroup struct {
	// ID is the checkpoint ID, or the session ID of temporary checkpoints.
	ID        string
	Temporary bool
	Task      bool
	// Prompt is the session's first prompt ("" shows "(no prompt)").
	Prompt string
	// Commits are the user commits (or shadow commits), newest first.
	Commits []Commit
}

// ListView is the default view of `entire explain`.
type ListView struct {
	// Branch is the branch name, or "HEAD (<sha7>)" when detached, or
	// "HEAD (no commits yet)".
	Branch string
	// Session is the --session filter ("" when none).
	Session string
	// Groups are the checkpoints, newest first.
	Groups []ListGroup
	// Unreadable are the linked checkpoints whose metadata cannot be read
	// (a corrupt metadata.json), one error each naming the checkpoint.
	Unreadable []error
}

// RenderList writes the list view (SPEC 1.9): "Branch:", "Checkpoints: n",
// an optional "Filtered by session:" line, then per group
// `[<id12>] [Task] [temporary] "<prompt ≤60>"` and one
// "  MM-DD HH:MM (<sha7>) <message ≤80>" line per commit, in local time of
// loc (nil: UTC). Each unreadable checkpoint gets a "Warning: checkpoint
// <id>: ..." line after the header. Without groups it prints the
// empty-branch message and a hint.
func RenderList(w io.Writer, v *ListView, loc *time.Location) error {
	if loc == nil {
		loc = time.UTC
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Branch: %s\n", v.Branch)
	fmt.Fprintf(&b, "Checkpoints: %d\n", len(v.Groups))
	if v.Session != "" {
		fmt.Fprintf(&b, "Filtered by session: %s\n", v.Session)
	}
	for _, err := range v.Unreadable {
		fmt.Fprintf(&b, "Warning: %v (see `entire doctor`)\n", err)
	}
	if len(v.Groups) == 0 && len(v.Unreadable) > 0 {
		b.WriteString("\nNo readable checkpoints found on this branch.\n")
	} else if len(v.Groups) == 0 {
		b.WriteString("\nNo checkpoints found on this branch.\n")
		b.WriteString("Checkpoints appear here after an agent turn in a repository where Entire is enabled.\n")
	}
	for _, g := range v.Groups {
		id := g.ID
		if len(id) > 12 && !checkpoint.ID(id).IsULID() {
			id = id[:12] // a temporary checkpoint's commit
		}
		b.WriteString("\n[" + id + "]")
		if g.Task {
			b.WriteString(" [Task]")
		}
		if g.Temporary {
			b.WriteString(" [temporary]")
		}
		if g.Prompt == "" {
			b.WriteString(" (no prompt)\n")
		} else {
			b.WriteString(" \"" + Truncate(g.Prompt, 60) + "\"\n")
		}
		for _, c := range g.Commits {
			fmt.Fprintf(&b, "  %s (%s) %s\n", c.Date.In(loc).Format("01-02 15:04"), short7(c.SHA), Truncate(c.Subject, 80))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
