package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/hooks"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/internal/settings"
	"github.com/entirecli/entire/strategy"
)

// doctorOptions holds the dependencies and flag values of `entire doctor`.
type doctorOptions struct {
	f *factory

	Force          bool // --force: condense when possible, else discard, without asking
	DiscardCorrupt bool // --discard-corrupt: delete unreadable session state files without asking
	Secrets        bool // --secrets: scan the stored data for secrets instead
	Purge          bool // --purge (with --secrets): rewrite the branches without them
}

func newDoctorCmd(f *factory, runF func(context.Context, *doctorOptions) error) *cobra.Command {
	opts := &doctorOptions{f: f}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Find and fix stuck sessions",
		Long: `Find sessions that are stuck: active with no interaction for over an hour
(or none recorded), or ended with temporary checkpoints that no commit
condensed. For each, choose:

  Condense  write its checkpoints to the metadata branch under a new
            checkpoint ID (manual-commit, when its shadow branch exists)
  Discard   delete its state (and its shadow branch if no other session
            uses it)
  Skip      leave it

With --force, every stuck session is condensed when possible, else
discarded, without asking. Without a terminal, --force is required.

Doctor also lists the session state files that cannot be read: those a
hook set aside (<id>.json.corrupt-<time>, the session went on afresh) and
live ones no hook has touched since they broke, and offers to delete
them; --discard-corrupt deletes them without asking (required without a
terminal). It names every checkpoint whose metadata on the metadata branch
cannot be read.

With --secrets, doctor instead scans everything stored on the entire
branches (their whole history) for secrets and reports, without printing
them, where each one is: branch, checkpoint, file and rule. It exits 1
when it finds any. --secrets --purge rewrites those branches with the
secrets redacted; you then force-push the rewritten branches and rotate
the credentials (anything pushed may have been copied).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Purge && !opts.Secrets {
				return usageErrorf("--purge requires --secrets")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			if opts.Secrets {
				return runDoctorSecrets(cmd.Context(), opts)
			}
			return runDoctor(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Force, "force", "f", false, "fix every stuck session without asking")
	cmd.Flags().BoolVar(&opts.DiscardCorrupt, "discard-corrupt", false, "delete unreadable session state files without asking")
	cmd.Flags().BoolVar(&opts.Secrets, "secrets", false, "scan the entire branches for secrets stored before redaction caught them")
	cmd.Flags().BoolVar(&opts.Purge, "purge", false, "with --secrets: rewrite the entire branches with the secrets redacted")
	cmd.AddCommand(newMigrateCheckpointsCmd(f))
	return cmd
}

// stuckAfter is how long an active session may go without interaction
// before doctor calls it stuck.
const stuckAfter = time.Hour

// stuckSession is a session doctor reports, with what it found.
type stuckSession struct {
	st          *session.State
	reason      string
	branch      string // shadow branch name ("" without a base commit)
	shadowFound bool
}

// canCondense reports whether the session's checkpoints can be condensed.
func (s stuckSession) canCondense(strategyName string) bool {
	return strategyName == settings.StrategyManualCommit && s.shadowFound && s.st.CheckpointCount > 0
}

func runDoctor(ctx context.Context, opts *doctorOptions) error {
	f := opts.f
	repo, err := f.OpenRepo()
	if err != nil {
		return err
	}
	reported := reportPending(ctx, f, repo)
	if _, dest := metadataStore(ctx, f, repo); dest.Local != "" && !dest.Disabled && !dest.NoRemote {
		// A setting that keeps checkpoint data here by accident (one
		// not understood, an inherited one) is worth one line.
		fmt.Fprintf(f.IO.Out, "Checkpoint data stays local: %s. To change that: %s.\n", iostreams.Escape(dest.Local), iostreams.Escape(dest.Fix))
		reported++
	}
	if n := len(hooks.UntrustedHooks(repo)) + len(hooks.PluginsNotRun(repo)); n > 0 {
		printUntrustedHooks(f.IO.Out, repo)
		reported += n
	}
	for _, e := range f.External {
		if e.Agent == nil && e.Err != nil {
			// An external agent program found but not used: its
			// sessions are not recorded until it answers.
			fmt.Fprintf(f.IO.Out, "! External agent %s skipped: %s\n", e.Name, iostreams.Escape(e.Err.Error()))
			reported++
		}
	}
	store := sessionStore(f, repo)
	pending, err := doctorCorrupt(f, store, opts.DiscardCorrupt)
	if err != nil {
		return err
	}
	if bad, err := checkpoint.NewStore(repo, f.Now).Unreadable(); err != nil {
		fmt.Fprintf(f.IO.ErrOut, "Warning: cannot check the stored checkpoints: %v\n", err)
	} else if len(bad) > 0 {
		fmt.Fprintf(f.IO.Out, "Found %d unreadable checkpoint(s):\n", len(bad))
		for _, err := range bad {
			fmt.Fprintf(f.IO.Out, "  %s\n", iostreams.Escape(err.Error()))
		}
	}
	states, _, err := store.List()
	if err != nil {
		return err
	}
	stuck, err := findStuck(repo, states, f.Now())
	if err != nil {
		return err
	}
	out := f.IO.Out
	if len(stuck) == 0 {
		if reported == 0 {
			fmt.Fprintln(out, "No stuck sessions found.")
		}
		return pending
	}
	fmt.Fprintf(out, "Found %d stuck session(s):\n", len(stuck))
	for _, s := range stuck {
		printStuck(out, s)
	}
	if !opts.Force && !f.IO.CanPrompt() {
		return errors.Join(pending, errors.New("cannot ask what to do (not a terminal): run `entire doctor --force` to condense each session when possible, else discard it"))
	}
	strategyName := loadSettings(repo).StrategyName()
	var mc *strategy.ManualCommit
	failures := 0
	for _, s := range stuck {
		action := "discard"
		if s.canCondense(strategyName) {
			action = "condense"
		}
		if !opts.Force {
			if action, err = chooseAction(f, s, strategyName); err != nil {
				return err
			}
		}
		switch action {
		case "condense":
			if mc == nil {
				env, log := openStrategyEnv(f, repo, "doctor")
				defer log.Close()
				mc = strategy.NewManualCommit(env)
			}
			id := mc.NewCheckpointID()
			if err := mc.CondenseSession(ctx, s.st.SessionID, id); err != nil {
				fmt.Fprintf(f.IO.ErrOut, "Could not condense session %s: %v\n", s.st.SessionID, err)
				failures++
				continue
			}
			fmt.Fprintf(out, "Condensed session %s into checkpoint %s\n", s.st.SessionID, id)
		case "discard":
			branch, err := discardSession(ctx, repo, store, s.st)
			if err != nil {
				fmt.Fprintf(f.IO.ErrOut, "Could not discard session %s: %v\n", s.st.SessionID, err)
				failures++
				continue
			}
			fmt.Fprintf(out, "Discarded session %s\n", s.st.SessionID)
			if branch != "" {
				fmt.Fprintf(out, "Deleted shadow branch %s\n", branch)
			}
		default:
			fmt.Fprintf(out, "Skipped session %s\n", s.st.SessionID)
		}
	}
	if failures > 0 {
		if pending != nil {
			fmt.Fprintf(f.IO.ErrOut, "Error: %v\n", pending)
		}
		return silentError(fmt.Errorf("%d session(s) could not be fixed", failures))
	}
	return pending
}

// doctorCorrupt lists the unreadable session state files and deletes them
// when discard says so or the user agrees. Without a terminal and without
// discard it returns (as pending) the error that tells which flag deletes
// them, after the rest of doctor has run.
func doctorCorrupt(f *factory, store *session.Store, discard bool) (pending error, err error) {
	cs, err := store.Corrupt()
	if err != nil || len(cs) == 0 {
		return nil, err
	}
	out := f.IO.Out
	fmt.Fprintf(out, "Found %d unreadable session state file(s):\n", len(cs))
	for _, c := range cs {
		if c.SetAside {
			fmt.Fprintf(out, "  %s (set aside by a hook; session %s went on afresh)\n", iostreams.Escape(c.Path), iostreams.Escape(c.SessionID))
		} else {
			fmt.Fprintf(out, "  %s (%s)\n", iostreams.Escape(c.Path), iostreams.Escape(c.Err.Error()))
		}
	}
	if !discard {
		yes, cerr := confirm(f, "Delete them?", "delete", "keep", false)
		if errors.Is(cerr, errCannotPrompt) {
			return errors.New("cannot ask whether to delete unreadable session state files (not a terminal): run `entire doctor --discard-corrupt` to delete them"), nil
		}
		discard = yes
	}
	if !discard {
		fmt.Fprintln(out, "Kept them.")
		return nil, nil
	}
	for _, c := range cs {
		if err := store.Discard(c); err != nil {
			return nil, err
		}
		fmt.Fprintf(out, "Discarded %s\n", iostreams.Escape(c.Path))
	}
	return nil, nil
}

// findStuck returns the stuck sessions among states (SPEC 1.12).
func findStuck(repo *gitrepo.Repo, states []*session.State, now time.Time) ([]stuckSession, error) {
	var out []stuckSession
	for _, st := range states {
		s := stuckSession{st: st}
		if st.BaseCommit != "" {
			s.branch = checkpoint.ShadowBranchName(st.BaseCommit, st.WorktreeID)
			tip, err := repo.ReadRef(checkpoint.ShadowRef(s.branch))
			if err != nil {
				return nil, err
			}
			s.shadowFound = !tip.IsZero()
		}
		switch {
		case st.Phase == session.PhaseActive && st.LastInteractionTime == nil:
			s.reason = "active, but no interaction was ever recorded"
		case st.Phase == session.PhaseActive && now.Sub(*st.LastInteractionTime) > stuckAfter:
			s.reason = fmt.Sprintf("active, but no interaction for %s", now.Sub(*st.LastInteractionTime).Round(time.Minute))
		case st.Phase == session.PhaseEnded && st.CheckpointCount > 0 && s.shadowFound:
			s.reason = fmt.Sprintf("ended with %d checkpoint(s) that no commit condensed", st.CheckpointCount)
		default:
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// printStuck prints one stuck session's details.
func printStuck(w io.Writer, s stuckSession) {
	st := s.st
	last := "never"
	if st.LastInteractionTime != nil {
		last = st.LastInteractionTime.UTC().Format(time.RFC3339)
	}
	shadow := "not found"
	if s.shadowFound {
		shadow = fmt.Sprintf("exists (%s)", s.branch)
	}
	agentType := st.AgentType
	if agentType == "" {
		agentType = "unknown"
	}
	fmt.Fprintf(w, "\nSession: %s\n  Phase: %s\n  Reason: %s\n  Agent: %s\n  Last interaction: %s\n  Shadow branch: %s\n  Checkpoints: %d, Files touched: %d\n",
		st.SessionID, st.Phase, s.reason, agentType, last, shadow, st.CheckpointCount, len(st.FilesTouched))
}

// chooseAction asks what to do with a stuck session: "condense" (offered
// only when possible), "discard" or "skip". An aborted question skips.
func chooseAction(f *factory, s stuckSession, strategyName string) (string, error) {
	labels := []string{}
	values := []string{}
	if s.canCondense(strategyName) {
		labels, values = append(labels, "Condense (save its checkpoints under a new checkpoint ID)"), append(values, "condense")
	}
	labels = append(labels, "Discard (delete its state and unused shadow branch)", "Skip")
	values = append(values, "discard", "skip")
	i, err := choose(f, fmt.Sprintf("Session %s: what should be done?", s.st.SessionID), labels, len(values)-1)
	if err != nil {
		return "", err
	}
	choice := "skip"
	if i >= 0 {
		choice = values[i]
	}
	return choice, nil
}
