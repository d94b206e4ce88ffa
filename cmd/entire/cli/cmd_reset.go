package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/settings"
	"github.com/entirecli/entire/strategy/translog"
)

// resetOptions holds the dependencies and flag values of `entire reset`.
type resetOptions struct {
	f *factory

	Session string // --session: reset only this session
	Force   bool   // --force: no question, active sessions too
}

func newResetCmd(f *factory, runF func(context.Context, *resetOptions) error) *cobra.Command {
	opts := &resetOptions{f: f}
	cmd := &cobra.Command{
		Use:   "reset",
		Short: "Delete the session data of the current commit",
		Long: `Delete the session states whose base is the current commit and the shadow
branch holding their temporary checkpoints (manual-commit strategy only).
Your files are not touched.

With --session, reset only that session; its shadow branch is deleted only
when no other session with checkpoints uses it.

Without --force, reset refuses while a session on this commit is active
and asks before deleting anything; when it cannot ask (no terminal), pass
--force.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runReset(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Session, "session", "", "reset only the session with this ID")
	cmd.Flags().BoolVarP(&opts.Force, "force", "f", false, "do not ask, and reset active sessions too")
	return cmd
}

// runReset resets the sessions of HEAD, or one session.
func runReset(ctx context.Context, opts *resetOptions) error {
	f := opts.f
	repo, err := f.OpenRepo()
	if err != nil {
		return err
	}
	if name := loadSettings(repo).StrategyName(); name != settings.StrategyManualCommit {
		return fmt.Errorf("strategy %s does not support reset", name)
	}
	store := sessionStore(f, repo)
	if opts.Session != "" {
		return resetSession(ctx, opts, repo, store)
	}
	head, err := repo.Head()
	if err != nil {
		return err
	}
	if head.IsZero() {
		fmt.Fprintln(f.IO.ErrOut, "Nothing to reset: the repository has no commits yet")
		return nil
	}
	branch := checkpoint.ShadowBranchName(head.String(), repo.WorktreeID)
	tip, err := repo.ReadRef(checkpoint.ShadowRef(branch))
	if err != nil {
		return err
	}
	states, corrupt, err := store.List()
	if err != nil {
		return err
	}
	if len(corrupt) > 0 {
		fmt.Fprintf(f.IO.ErrOut, "Warning: skipped %d unreadable session state files\n", len(corrupt))
	}
	var onHead, active []*session.State
	for _, st := range states {
		if st.BaseCommit == head.String() {
			onHead = append(onHead, st)
			if st.Phase == session.PhaseActive {
				active = append(active, st)
			}
		}
	}
	if len(onHead) == 0 && tip.IsZero() {
		fmt.Fprintf(f.IO.ErrOut, "Nothing to reset for %s\n", branch)
		return nil
	}
	if !opts.Force {
		if len(active) > 0 {
			fmt.Fprintln(f.IO.ErrOut, "Active sessions on this commit:")
			for _, st := range active {
				fmt.Fprintf(f.IO.ErrOut, "  %s (phase: %s)\n", st.SessionID, st.Phase)
			}
			fmt.Fprintln(f.IO.ErrOut, "Resetting would lose their work in progress. Run with --force to reset anyway.")
			return nil
		}
		ok, err := confirm(f, "Reset session data?", "Reset", "Cancel", false)
		if err != nil {
			return promptError(err, "reset")
		}
		if !ok {
			return nil
		}
	}
	for _, st := range onHead {
		if err := store.Delete(st.SessionID); err != nil {
			return err
		}
		removeTransient(repo, st)
		fmt.Fprintf(f.IO.ErrOut, "Cleared session state for %s\n", st.SessionID)
	}
	if !tip.IsZero() {
		if err := repo.DeleteRef(ctx, checkpoint.ShadowRef(branch), tip); err != nil {
			return err
		}
		fmt.Fprintf(f.IO.ErrOut, "Deleted shadow branch %s\n", branch)
	}
	return nil
}

// resetSession resets the one session of --session.
func resetSession(ctx context.Context, opts *resetOptions, repo *gitrepo.Repo, store *session.Store) error {
	f := opts.f
	st, err := loadSession(store, opts.Session)
	if err != nil {
		return err
	}
	if !opts.Force {
		fmt.Fprintf(f.IO.ErrOut, "Phase: %s, Checkpoints: %d\n", st.Phase, st.CheckpointCount)
		ok, err := confirm(f, fmt.Sprintf("Reset session %s?", st.SessionID), "Reset", "Cancel", false)
		if err != nil {
			return promptError(err, "reset")
		}
		if !ok {
			return nil
		}
	}
	if _, err := discardSession(ctx, repo, store, st); err != nil {
		return err
	}
	fmt.Fprintf(f.IO.ErrOut, "Session %s has been reset. File changes remain in the working directory.\n", st.SessionID)
	return nil
}

// loadSession loads a session named on the command line, with an error a
// person understands when it does not exist.
func loadSession(store *session.Store, id string) (*session.State, error) {
	st, err := store.Load(id)
	switch {
	case errors.Is(err, session.ErrNotFound):
		return nil, fmt.Errorf("session %s not found (run `entire status` to list sessions)", id)
	case errors.Is(err, session.ErrInvalidID):
		return nil, fmt.Errorf("invalid session ID %q", id)
	case err != nil:
		return nil, err
	}
	return st, nil
}

// promptError turns confirm's failure into the error of a command: when it
// cannot ask, the user is told to pass --force.
func promptError(err error, command string) error {
	if errors.Is(err, errCannotPrompt) {
		return fmt.Errorf("cannot ask for confirmation (not a terminal): run `entire %s --force`", command)
	}
	return err
}

// discardSession deletes a session's state and transient files, and its
// shadow branch unless another session holds it
// (session.State.HoldsShadowBranch). It
// returns the deleted branch ("" when none).
func discardSession(ctx context.Context, repo *gitrepo.Repo, store *session.Store, st *session.State) (string, error) {
	if err := store.Delete(st.SessionID); err != nil {
		return "", err
	}
	removeTransient(repo, st)
	if st.BaseCommit == "" {
		return "", nil
	}
	branch := checkpoint.ShadowBranchName(st.BaseCommit, st.WorktreeID)
	others, _, err := store.List()
	if err != nil {
		return "", err
	}
	for _, o := range others {
		if o.SessionID != st.SessionID && o.HoldsShadowBranch() &&
			checkpoint.ShadowBranchName(o.BaseCommit, o.WorktreeID) == branch {
			return "", nil
		}
	}
	tip, err := repo.ReadRef(checkpoint.ShadowRef(branch))
	if err != nil || tip.IsZero() {
		return "", err
	}
	if err := repo.DeleteRef(ctx, checkpoint.ShadowRef(branch), tip); err != nil {
		return "", err
	}
	return branch, nil
}

// removeTransient deletes a session's pre-prompt file in its work tree
// (best effort: a leftover file is harmless).
func removeTransient(repo *gitrepo.Repo, st *session.State) {
	root := repo.Root
	if st.WorktreePath != "" {
		root = filepath.Clean(st.WorktreePath)
	}
	_ = session.DeletePrePrompt(root, st.SessionID)
	_ = translog.New(repo.CommonDir, st.SessionID).Remove()
}
