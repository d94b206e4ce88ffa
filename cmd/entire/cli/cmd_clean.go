package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/entirecli/entire/internal/logging"
	"github.com/entirecli/entire/strategy"
)

// cleanOptions holds the dependencies and flag values of `entire clean`.
type cleanOptions struct {
	f *factory

	Force bool // --force: delete instead of listing
}

func newCleanCmd(f *factory, runF func(context.Context, *cleanOptions) error) *cobra.Command {
	opts := &cleanOptions{f: f}
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "List or delete orphaned Entire data",
		Long: `List what Entire left behind that nothing uses any more:

  - shadow branches (entire/<commit>) that no session state refers to;
  - session states older than 10 minutes, not active, with neither a
    committed checkpoint nor a shadow branch;
  - auto-commit checkpoints that no commit of a local branch links to.

Without --force nothing is deleted. The metadata branch itself is never
deleted; orphaned checkpoints are removed from it in one commit.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runClean(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Force, "force", "f", false, "delete the orphaned items")
	return cmd
}

func runClean(ctx context.Context, opts *cleanOptions) error {
	f := opts.f
	repo, err := f.OpenRepo()
	if err != nil {
		return err
	}
	log := logging.Open(logging.Options{RepoRoot: repo.Root, Settings: loadSettings(repo), Getenv: f.Getenv, Fallback: f.IO.ErrOut})
	defer log.Close()
	store := sessionStore(f, repo)
	found, err := strategy.FindOrphans(ctx, repo, store, f.Now())
	if err != nil {
		return err
	}
	out := f.IO.Out
	if found.Count() == 0 {
		fmt.Fprintln(out, "No orphaned items to clean up.")
		return nil
	}
	if !opts.Force {
		fmt.Fprintf(out, "Found %d orphaned items:\n", found.Count())
		printOrphans(out, found)
		fmt.Fprintln(out, "\nRun with --force to delete these items.")
		return nil
	}
	deleted, failed := strategy.DeleteOrphans(ctx, repo, store, found)
	for _, fl := range failed {
		log.Warn("clean: delete failed", "item", fl)
	}
	log.Info("clean", "deleted", deleted.Count(), "failed", len(failed))
	if deleted.Count() > 0 {
		fmt.Fprintf(out, "Deleted %d items:\n", deleted.Count())
		printOrphans(out, deleted)
	}
	if len(failed) > 0 {
		fmt.Fprintf(f.IO.ErrOut, "\nFailed to delete %d items:\n", len(failed))
		for _, fl := range failed {
			fmt.Fprintf(f.IO.ErrOut, "  %s\n", fl)
		}
		return silentError(nil)
	}
	return nil
}

// printOrphans prints the non-empty sections of o.
func printOrphans(w io.Writer, o strategy.Orphans) {
	section := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s (%d):\n", title, len(items))
		for _, it := range items {
			fmt.Fprintf(w, "  %s\n", it)
		}
	}
	ids := make([]string, len(o.Checkpoints))
	for i, id := range o.Checkpoints {
		ids[i] = id.String()
	}
	section("Shadow branches", o.Branches)
	section("Session states", o.Sessions)
	section("Checkpoint metadata", ids)
}
