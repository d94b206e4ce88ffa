package cli

import (
	"context"
	"encoding/json"

	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/renderrefs"
	"github.com/entirecli/entire/strategy/references"
	"github.com/entirecli/entire/strategy/rewind"
)

// rewindOptions holds the dependencies and flag values of `entire rewind`.
type rewindOptions struct {
	f *factory

	List     bool   // --list: print the points as JSON
	To       string // --to <id>: rewind without asking
	LogsOnly bool   // --logs-only: restore only the transcripts of a committed point
	Reset    bool   // --reset: reset the branch to a committed point
	Undo     string // --undo [ref]: return to an undo point ("newest" for the latest)
	DryRun   bool   // --dry-run: print what would change
	UndoArg  string // positional undo point name
}

// undoNewest is the value of a bare --undo.
const undoNewest = "newest"

func newRewindCmd(f *factory, runF func(context.Context, *rewindOptions) error) *cobra.Command {
	opts := &rewindOptions{f: f}
	cmd := &cobra.Command{
		Use:   "rewind",
		Short: "Browse checkpoints and rewind your session to one",
		Long: `Rewind the work tree and the agent's conversation to an earlier checkpoint.

Without flags, pick a checkpoint interactively. --list prints the rewind
points as JSON; --to <id> rewinds to one without asking (a full commit hash
or a prefix of at least 7 characters). For a committed checkpoint,
--logs-only restores only the session transcripts and --reset also resets
the branch to that commit.

Only the files that the agents' turns changed are rewound: files only you
changed are kept as they are.

Before anything is changed, what the rewind is about to overwrite or
delete (files, staged changes, the agent transcripts' cut tails, notes) is
saved as an undo point in .git/entire-undo/ (plain files outside git's
refs, never pushed, the last 10 kept). --undo returns to the newest one
(or to the one named: entire rewind --undo <name>).
--dry-run prints what would change without changing it.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && opts.Undo == "" {
				return usageErrorf("unexpected argument %q", args[0])
			}
			return cobra.MaximumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.UndoArg = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRewind(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.List, "list", false, "print the rewind points as JSON")
	fl.StringVar(&opts.To, "to", "", "rewind to this point without asking (commit hash or prefix)")
	fl.BoolVar(&opts.LogsOnly, "logs-only", false, "with --to: restore only the session logs of a committed checkpoint")
	fl.BoolVar(&opts.Reset, "reset", false, "with --to: reset the branch to a committed checkpoint (git reset --hard)")
	fl.StringVar(&opts.Undo, "undo", "", "return to the newest undo point (or the one named)")
	fl.Lookup("undo").NoOptDefVal = undoNewest
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print what would change without changing anything")
	return cmd
}

// runRewind dispatches on the flags.
func runRewind(ctx context.Context, opts *rewindOptions) error {
	f := opts.f
	if err := opts.validate(); err != nil {
		return err
	}
	if enabled, err := checkEnabled(f); err != nil || !enabled {
		return err
	}
	repo, err := f.OpenRepo()
	if err != nil {
		return err
	}
	completePending(ctx, f, repo)
	rw := rewind.New(rewind.Options{
		Repo:     repo,
		Sessions: session.NewStore(session.Options{GitCommonDir: repo.CommonDir, Now: f.Now}),
		Now:      f.Now,
		Progress: f.IO.ErrOut,
	})
	switch {
	case opts.Undo != "":
		return runUndo(ctx, opts, rw)
	case opts.List:
		pts, err := rw.List(ctx)
		if err != nil {
			return err
		}
		if pts == nil {
			pts = []rewind.Point{}
		}
		b, err := json.MarshalIndent(pts, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(f.IO.Out, string(b))
		return nil
	case opts.To != "":
		p, err := rw.Find(ctx, opts.To)
		if err != nil {
			return err
		}
		return rewindTo(ctx, opts, rw, p)
	default:
		return runRewindInteractive(ctx, opts, rw)
	}
}

// validate rejects flag combinations that make no sense.
func (o *rewindOptions) validate() error {
	switch {
	case o.LogsOnly && o.Reset:
		return usageErrorf("--logs-only and --reset cannot be used together")
	case (o.LogsOnly || o.Reset) && o.To == "":
		return usageErrorf("--logs-only and --reset need --to <id>")
	case o.List && (o.To != "" || o.Undo != "" || o.DryRun):
		return usageErrorf("--list cannot be combined with --to, --undo or --dry-run")
	case o.Undo != "" && o.To != "":
		return usageErrorf("--undo cannot be combined with --to")
	case o.DryRun && o.Reset:
		return usageErrorf("--dry-run cannot be combined with --reset")
	}
	return nil
}

// rewindTo rewinds to p as the flags say, without asking.
func rewindTo(ctx context.Context, opts *rewindOptions, rw *rewind.Rewinder, p rewind.Point) error {
	f := opts.f
	errOut := f.IO.ErrOut
	if !opts.Reset && !opts.LogsOnly && p.IsLogsOnly && rw.ResetsBranch(ctx, p, configuredStrategy(f)) {
		// auto-commit: every turn is a commit, and rewinding to one is a
		// reset of the branch (SPEC 5.3), unless the commit is already on
		// main/master.
		o := *opts
		o.Reset = true
		opts = &o
	}
	switch {
	case opts.Reset:
		if !p.IsLogsOnly {
			return fmt.Errorf("--reset needs a committed checkpoint; %s is a temporary one (rewind to it without --reset)", p.Short())
		}
		res, old, err := rw.Reset(ctx, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(errOut, "Reset branch to %s.\n", p.Short())
		printResume(errOut, res.Transcripts)
		fmt.Fprintf(errOut, "To undo this reset: git reset --hard %s && entire rewind --undo\n", old.String()[:7])
		return nil
	case opts.LogsOnly || p.IsLogsOnly:
		if opts.LogsOnly && !p.IsLogsOnly {
			return fmt.Errorf("--logs-only needs a committed checkpoint; %s is a temporary checkpoint and has no committed logs", p.Short())
		}
		plan, err := rw.PlanLogs(ctx, p)
		if err != nil {
			return err
		}
		if opts.DryRun {
			printPlan(f.IO.Out, plan)
			return nil
		}
		res, err := rw.Apply(ctx, plan)
		if err != nil {
			return err
		}
		fmt.Fprintln(errOut, "Restored session logs.")
		printResume(errOut, res.Transcripts)
		printFullRestoreNote(errOut, p)
		fmt.Fprintf(errOut, "Undo with: entire rewind --undo (undo point %s)\n", res.UndoPoint)
		emitUndoRef(f, res.UndoPoint, "before restoring the logs of "+p.Short())
		return nil
	}
	plan, err := rw.PlanRewind(ctx, p)
	if err != nil {
		return err
	}
	if opts.DryRun {
		printPlan(f.IO.Out, plan)
		return nil
	}
	return applyRewind(ctx, f, rw, plan)
}

// printFullRestoreNote follows a logs-only restore (SPEC 6.4): the files
// are unchanged, and these commands would change them, as the interactive
// picker's choices for a committed point do (SPEC 6.2).
func printFullRestoreNote(w io.Writer, p rewind.Point) {
	fmt.Fprintln(w, "Note: Working directory unchanged. Use interactive mode for full checkout.")
	fmt.Fprintln(w, "Or run one of:")
	fmt.Fprintf(w, "  entire rewind --to %s --reset   # reset the branch to this commit (destructive)\n", p.ID)
	fmt.Fprintf(w, "  git checkout %s   # detached HEAD, for viewing\n", p.ID)
}

// Why a rewind leaves a path as it is.
const (
	keptOther = "another session's work"
	keptUser  = "your edit; no session changed it"
)

// applyRewind carries out a temporary-point plan and reports it.
func applyRewind(ctx context.Context, f *factory, rw *rewind.Rewinder, plan *rewind.Plan) error {
	errOut := f.IO.ErrOut
	res, err := rw.Apply(ctx, plan)
	if err != nil {
		if res != nil && res.UndoPoint != "" {
			fmt.Fprintf(errOut, "Rewind failed part way; `entire rewind --undo` returns to undo point %s.\n", res.UndoPoint)
		}
		return err
	}
	for _, k := range plan.Kept {
		fmt.Fprintf(errOut, "  Kept (%s): %s\n", keptOther, iostreams.Escape(k))
	}
	for _, k := range plan.UserKept {
		fmt.Fprintf(errOut, "  Kept (%s): %s\n", keptUser, iostreams.Escape(k))
	}
	// Apply reported each path ("  Restored: <path>", "  Deleted: <path>").
	fmt.Fprintf(f.IO.Out, "Restored files from shadow commit %s\n", plan.Point.Short())
	label := "Rewound to " + plan.Point.Short() + "."
	if plan.Point.IsTaskCheckpoint {
		label = "Rewound to task checkpoint."
	}
	if len(res.Transcripts) == 1 && res.Transcripts[0].ResumeCommand != "" {
		fmt.Fprintf(errOut, "%s %s\n", label, iostreams.Escape(res.Transcripts[0].ResumeCommand))
	} else {
		fmt.Fprintln(errOut, label)
		printResume(errOut, res.Transcripts)
	}
	fmt.Fprintf(errOut, "Undo with: entire rewind --undo (undo point %s)\n", res.UndoPoint)
	emitUndoRef(f, res.UndoPoint, "before rewinding to "+plan.Point.Short())
	return nil
}

// emitUndoRef announces an undo point a rewind created (render
// references, issue 7).
func emitUndoRef(f *factory, name, title string) {
	if name == "" {
		return
	}
	emitRef(f, renderrefs.Reference{Type: references.TypeUndoPoint, ID: name, Intent: renderrefs.IntentCreated,
		Preview: &renderrefs.Preview{Title: "Undo point " + title}})
}

// printResume prints the resume command lines of SPEC 6.3 step 5.
func printResume(w io.Writer, ts []rewind.Transcript) {
	var lines []string
	for _, t := range ts {
		if t.ResumeCommand == "" {
			continue
		}
		l := t.ResumeCommand
		if t.Prompt != "" {
			l += "  # " + t.Prompt
		}
		// The session ID in the command and the prompt come from the
		// checkpoint, which may be a teammate's.
		lines = append(lines, iostreams.Escape(l))
	}
	switch len(lines) {
	case 0:
	case 1:
		fmt.Fprintln(w, lines[0])
	default:
		fmt.Fprintf(w, "Restored %d sessions. Resume with:\n", len(lines))
		printMostRecentLast(w, lines)
	}
}

// printMostRecentLast prints the resume lines of several sessions, oldest
// first, indented, the last one marked "(most recent)" (SPEC 6.3 and 6.5
// step 5).
func printMostRecentLast(w io.Writer, lines []string) {
	for i, l := range lines {
		if i == len(lines)-1 {
			l += " (most recent)"
		}
		fmt.Fprintf(w, "  %s\n", l)
	}
}

// printPlan prints a dry run: the files that would be added, modified and
// deleted, and the transcripts that would be written.
func printPlan(w io.Writer, plan *rewind.Plan) {
	fmt.Fprintf(w, "Would rewind to %s: %s\n", plan.Point.Short(), iostreams.Escape(plan.Point.Message))
	if len(plan.Changes) == 0 && !plan.Point.IsLogsOnly {
		fmt.Fprintln(w, "No files would change.")
	}
	for _, c := range plan.Changes {
		word := map[rewind.ChangeKind]string{rewind.Added: "added", rewind.Modified: "modified", rewind.Deleted: "deleted"}[c.Kind]
		note := ""
		if c.OverwritesEdits {
			note = " (overwrites your later edits)"
		}
		fmt.Fprintf(w, "  %-9s %s%s\n", word+":", iostreams.Escape(c.Path), note)
	}
	for _, k := range plan.Kept {
		fmt.Fprintf(w, "  %-9s %s (%s)\n", "kept:", iostreams.Escape(k), keptOther)
	}
	for _, k := range plan.UserKept {
		fmt.Fprintf(w, "  %-9s %s (%s)\n", "kept:", iostreams.Escape(k), keptUser)
	}
	for _, t := range plan.Transcripts {
		fmt.Fprintf(w, "Would restore the transcript of session %s to %s\n", iostreams.Escape(t.SessionID), iostreams.Escape(t.Path))
	}
}

// runUndo returns to an undo point.
func runUndo(ctx context.Context, opts *rewindOptions, rw *rewind.Rewinder) error {
	name := opts.UndoArg
	if opts.Undo != undoNewest {
		name = opts.Undo
	}
	if opts.DryRun {
		return usageErrorf("--dry-run cannot be combined with --undo")
	}
	res, err := rw.Undo(ctx, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.f.IO.ErrOut, "Returned to undo point %s (%d files changed).\n", res.UndoPoint, len(res.Changes))
	printResume(opts.f.IO.ErrOut, res.Transcripts)
	return nil
}

// configuredStrategy is the name of the repository's strategy ("" outside
// a repository).
func configuredStrategy(f *factory) string {
	repo, err := f.OpenRepo()
	if err != nil {
		return ""
	}
	return loadSettings(repo).StrategyName()
}
