package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/entirecli/entire/explain"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/strategy/rewind"
)

// resumeOptions holds the dependencies and flag values of `entire resume`.
type resumeOptions struct {
	f *factory

	Branch string // the branch to resume
	Force  bool   // -f/--force: no questions; overwrite newer local transcripts
}

func newResumeCmd(f *factory, runF func(context.Context, *resumeOptions) error) *cobra.Command {
	opts := &resumeOptions{f: f}
	cmd := &cobra.Command{
		Use:   "resume <branch>",
		Short: "Switch to a branch and restore its agent sessions",
		Long: `Check out <branch>, find the latest checkpoint on it, write the transcripts of
its sessions back where the agent keeps them (fetching the checkpoint metadata
from the checkpoint remote when it is missing here), and print the command
that continues each session (` + resumeCommandForms() + `).

It works in a fresh clone on another machine. A local transcript with newer
entries than the checkpoint's is only overwritten after confirmation or with
--force. Nothing is changed when something is wrong. Sessions that only
older checkpoints of the branch hold are named, each with the
` + "`entire rewind --to <commit> --logs-only`" + ` that restores it.`,
		Example: `  entire resume feature/login
  entire resume feature/login --force`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("resume takes exactly one argument, the branch name (got %d)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Branch = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runResume(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Force, "force", "f", false, "do not ask; overwrite newer local session transcripts")
	return cmd
}

// resumeCommandForms lists the resume command of every registered agent,
// "<id>" for the session ID ("claude -r <id>, gemini --resume <id>").
func resumeCommandForms() string {
	var forms []string
	for _, a := range registeredAgents() {
		forms = append(forms, a.FormatResumeCommand("<id>"))
	}
	return strings.Join(forms, ", ")
}

// runResume hands the use case to rewind.Resume, answering its questions
// on the terminal, and prints how to continue what it restored.
func runResume(ctx context.Context, opts *resumeOptions) error {
	f := opts.f
	if ok, err := checkEnabled(f); err != nil || !ok {
		return err
	}
	repo, err := f.OpenRepo()
	if err != nil {
		return err
	}
	completePending(ctx, f, repo)
	res, err := rewind.Resume(ctx, rewind.ResumeOptions{Repo: repo, Branch: opts.Branch, Force: opts.Force,
		Now: f.Now, Out: f.IO.ErrOut, Ask: resumeAsker{f}, Getenv: f.Getenv})
	if err != nil {
		return err
	}
	if len(res.Restored) == 0 {
		return nil
	}
	printResumeCommands(f, res.Restored)
	printOtherSessions(f, opts.Branch, res)
	return nil
}

// resumeAsker asks resume's questions on the terminal; without one, the
// fetch goes ahead and the others need --force.
type resumeAsker struct{ f *factory }

// ConfirmFetch asks SPEC 6.5's question where there is a terminal to ask
// on; without one, the fetch is what the command asks for.
func (a resumeAsker) ConfirmFetch(branch string) error {
	ok, err := confirm(a.f, fmt.Sprintf("Branch '%s' not found locally. Fetch from origin?", branch), "Yes", "No", true)
	switch {
	case errors.Is(err, errCannotPrompt):
		fmt.Fprintf(a.f.IO.ErrOut, "Branch '%s' not found locally. Fetching it from origin...\n", branch)
		return nil
	case err != nil:
		return err
	case !ok:
		return silentError(nil)
	}
	return nil
}

// ConfirmOlder asks before resuming from a checkpoint older than the
// branch's newest commits.
func (a resumeAsker) ConfirmOlder(p rewind.OlderCheckpoint) error {
	w := a.f.IO.ErrOut
	fmt.Fprintln(w, "Found checkpoint in an older commit.")
	fmt.Fprintf(w, "%d newer commit(s) on '%s' have no checkpoint.\n", p.Newer, p.Branch)
	fmt.Fprintf(w, "Checkpoint from: %s %s\n", p.Commit[:7], iostreams.Escape(p.Subject))
	ok, err := confirm(a.f, "Resume from this older checkpoint?", "Yes", "No", true)
	if errors.Is(err, errCannotPrompt) {
		return errors.New("not resuming from an older checkpoint without confirmation (use --force)")
	}
	if err != nil || !ok {
		return silentError(err)
	}
	return nil
}

// ConfirmOverwrite asks before overwriting local transcripts that have
// newer entries than the checkpoint.
func (a resumeAsker) ConfirmOverwrite(newer []rewind.NewerTranscript) error {
	w := a.f.IO.ErrOut
	fmt.Fprintln(w, "Warning: Local session log(s) have newer entries than the checkpoint:")
	for _, n := range newer {
		fmt.Fprintf(w, "  %s (%s)\n", iostreams.Escape(n.SessionID), iostreams.Escape(n.Path))
	}
	ok, err := confirm(a.f, "Overwrite local session logs with checkpoint versions?", "Overwrite", "Cancel", false)
	if errors.Is(err, errCannotPrompt) {
		return errors.New("local session logs are newer than the checkpoint; not overwriting them (use --force to overwrite)")
	}
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintln(w, "Cancelled; nothing was changed.")
		return silentError(nil)
	}
	return nil
}

// printResumeCommands prints how to continue the restored sessions
// (SPEC 6.5 step 5).
func printResumeCommands(f *factory, restored []rewind.RestoredSession) {
	w := f.IO.ErrOut
	line := func(s rewind.RestoredSession) string {
		cmd := s.ResumeCommand
		if s.Prompt != "" {
			cmd += "  # " + explain.Truncate(s.Prompt, 60)
		}
		return iostreams.Escape(cmd) // the session ID and prompt of a teammate's checkpoint
	}
	if len(restored) == 1 {
		fmt.Fprintf(w, "Session: %s\n", iostreams.Escape(restored[0].SessionID))
		fmt.Fprintf(w, "Restored transcript to %s\n", iostreams.Escape(restored[0].Path))
		fmt.Fprintln(w, "To continue this session, run:")
		fmt.Fprintf(w, "  %s\n", line(restored[0]))
		return
	}
	fmt.Fprintf(w, "Restored %d sessions. To continue, run:\n", len(restored))
	lines := make([]string, len(restored))
	for i, s := range restored {
		lines[i] = line(s)
	}
	printMostRecentLast(w, lines)
}

// printOtherSessions follows the resume commands when the branch's older
// checkpoints hold sessions that resume did not restore (it restores the
// checkpoints of one commit): it says which commit's sessions were
// restored and prints, per other session, the rewind that restores it.
func printOtherSessions(f *factory, branch string, res *rewind.ResumeResult) {
	if len(res.Others) == 0 {
		return
	}
	w := f.IO.ErrOut
	fmt.Fprintf(w, "Restored the sessions of the latest checkpoint (commit %s).\n", res.Commit[:min(7, len(res.Commit))])
	if len(res.Others) == 1 {
		fmt.Fprintf(w, "1 older session on '%s' was not restored; to restore it, run:\n", iostreams.Escape(branch))
	} else {
		fmt.Fprintf(w, "%d older sessions on '%s' were not restored; to restore one, run:\n", len(res.Others), iostreams.Escape(branch))
	}
	for _, o := range res.Others {
		line := "  entire rewind --to " + o.Commit[:7] + " --logs-only  # " + o.SessionID
		if o.Prompt != "" {
			line += ": " + explain.Truncate(o.Prompt, 60)
		}
		if len(o.Overlaps) > 0 {
			line += " (also writes back the older transcript of " + strings.Join(o.Overlaps, ", ") + "; `entire rewind --undo` returns)"
		}
		fmt.Fprintln(w, iostreams.Escape(line)) // session IDs and prompts of a teammate's checkpoints
	}
}
