package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/strategy/rewind"
)

// runRewindInteractive lets the user pick a point on the terminal (SPEC
// 6.2), in plain text when ACCESSIBLE is set.
func runRewindInteractive(ctx context.Context, opts *rewindOptions, rw *rewind.Rewinder) error {
	f := opts.f
	if !f.IO.CanPrompt() {
		return errors.New("no terminal to pick a rewind point on: use `entire rewind --list` and `entire rewind --to <id>`")
	}
	pts, err := rw.List(ctx)
	if err != nil {
		return err
	}
	if len(pts) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "No rewind points found.")
		fmt.Fprintln(f.IO.ErrOut, "Rewind points are created when an agent session changes files.")
		return nil
	}
	sessions := map[string]bool{}
	for _, p := range pts {
		sessions[p.SessionID] = true
	}
	labels := make([]string, 0, len(pts)+1)
	for _, p := range pts {
		labels = append(labels, pointLabel(p, len(sessions) > 1))
	}
	labels = append(labels, "Cancel")
	choice, err := choose(f, "Select a checkpoint to restore", labels, -1)
	if err != nil || choice < 0 || choice >= len(pts) {
		return err
	}
	p := pts[choice]
	if p.IsLogsOnly {
		return pickLogsOnly(ctx, opts, rw, p)
	}
	plan, err := rw.PlanRewind(ctx, p)
	if err != nil {
		return err
	}
	var deleted, overwritten []string
	for _, c := range plan.Changes {
		if c.Kind == rewind.Deleted {
			deleted = append(deleted, c.Path)
		}
		if c.OverwritesEdits {
			overwritten = append(overwritten, c.Path)
		}
	}
	warnPaths(f.IO.ErrOut, "Warning: The following files will be DELETED:", deleted)
	warnPaths(f.IO.ErrOut, "Warning: The rewind overwrites your later edits of:", overwritten)
	if n := len(plan.UserKept); n > 0 {
		fmt.Fprintf(f.IO.ErrOut, "%d files only you changed are kept as they are.\n", n)
	}
	fmt.Fprintf(f.IO.ErrOut, "This will reset to: %s\n%d files change; `entire rewind --undo` brings them back.\n", iostreams.Escape(p.Message), len(plan.Changes))
	ok, err := confirm(f, "Reset to "+p.Short()+"?", "Yes", "No", true)
	if err != nil || !ok {
		return err
	}
	return applyRewind(ctx, f, rw, plan)
}

// warnPaths prints a heading and the paths under it, escaped (a cloned
// repository's file names may hold anything), nothing when there are none.
func warnPaths(w io.Writer, heading string, paths []string) {
	if len(paths) == 0 {
		return
	}
	fmt.Fprintln(w, heading)
	for _, p := range paths {
		fmt.Fprintf(w, "  %s\n", iostreams.Escape(p))
	}
}

// pickLogsOnly is the sub-menu of a committed point.
func pickLogsOnly(ctx context.Context, opts *rewindOptions, rw *rewind.Rewinder, p rewind.Point) error {
	f := opts.f
	actions := []string{"logs", "checkout", "reset", ""}
	i, err := choose(f, "What do you want to do with "+p.Short()+"?", []string{
		"Restore logs only (keep current files)",
		"Checkout commit (detached HEAD, for viewing)",
		"Reset branch to this commit (destructive!)",
		"Cancel",
	}, -1)
	if err != nil || i < 0 {
		return err
	}
	switch actions[i] {
	case "logs":
		o := *opts
		o.LogsOnly = true
		return rewindTo(ctx, &o, rw, p)
	case "checkout":
		plan, err := rw.PlanLogs(ctx, p)
		if err != nil {
			return err
		}
		ok, err := confirm(f, "Create detached HEAD?", "Yes", "No", true)
		if err != nil || !ok {
			return err
		}
		res, err := rw.Apply(ctx, plan)
		if err != nil {
			return err
		}
		repo, err := f.OpenRepo()
		if err != nil {
			return err
		}
		if _, err := repo.RunGit(ctx, "checkout", "-q", p.ID); err != nil {
			return err
		}
		fmt.Fprintf(f.IO.ErrOut, "Checked out %s (detached HEAD).\n", p.Short())
		printResume(f.IO.ErrOut, res.Transcripts)
		return nil
	case "reset":
		fmt.Fprintln(f.IO.ErrOut, "Uncommitted changes are saved as an undo point; commits after this point leave the branch.")
		ok, err := confirm(f, "Reset branch to "+p.Short()+"?", "Yes", "No", false)
		if err != nil || !ok {
			return err
		}
		o := *opts
		o.Reset = true
		return rewindTo(ctx, &o, rw, p)
	}
	return nil
}

// pointLabel is a row of the picker (SPEC 6.2).
func pointLabel(p rewind.Point, manySessions bool) string {
	date := p.When.Local().Format("2006-01-02 15:04")
	var s string
	switch {
	case p.IsLogsOnly:
		s = fmt.Sprintf("%s (%s) %s", p.Short(), date, p.Message)
	case p.IsTaskCheckpoint:
		s = fmt.Sprintf("        (%s) [Task] %s", date, p.Message)
	default:
		s = fmt.Sprintf("        (%s) %s", date, p.Message)
	}
	if manySessions && p.SessionPrompt != "" {
		s += " [" + p.SessionPrompt + "]"
	}
	return sanitizeLabel(s)
}

// sanitizeLabel makes a one-row label: control sequences escaped as
// everywhere else (iostreams.Escape), then what would still garble the row
// dropped: newlines, tabs and other non-printable characters, zero-width
// joiners, variation selectors and emoji skin-tone modifiers.
func sanitizeLabel(s string) string {
	s = iostreams.Escape(s)
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\u200d', r >= '\ufe00' && r <= '\ufe0f', r >= 0x1f3fb && r <= 0x1f3ff:
			return -1
		case !unicode.IsPrint(r) && r != ' ':
			return -1
		}
		return r
	}, s)
}
