package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/settings"
)

// newMigrateCheckpointsCmd is `entire doctor migrate-checkpoints`.
func newMigrateCheckpointsCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate-checkpoints",
		Short: "Copy the entire/checkpoints/v1 history into one ref per checkpoint",
		Long: `Copy every checkpoint of the entire/checkpoints/v1 branch into its own ref,
refs/entire/checkpoints/<last two>/<id>, the layout today's Entire writes
(checkpoints.primary.type "git-refs"), keeping every ID, then set that
layout in .entire/settings.json. The refs go to the checkpoint remote with
your next pushes.

It can be stopped and run again: checkpoints already copied are skipped.
Nothing is deleted: the v1 branch stays until you delete it yourself.
Commit the settings change so that your team moves together: Entire 0.4.x
reads only the v1 branch and sees no checkpoint written after the move.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMigrateCheckpoints(cmd.Context(), f)
		},
	}
}

func runMigrateCheckpoints(ctx context.Context, f *factory) error {
	repo, err := openRepoFor(f, "entire doctor migrate-checkpoints")
	if err != nil {
		return err
	}
	if _, err := settings.Load(repo.Root); err != nil {
		return fmt.Errorf("%w (fix the settings first: the layout is written there)", err)
	}
	store, _ := metadataStore(ctx, f, repo)
	out, errOut := f.IO.Out, f.IO.ErrOut
	progress := func(done, total int) {
		if done%1000 == 0 && done < total {
			fmt.Fprintf(errOut, "  %d of %d checkpoints\n", done, total)
		}
	}
	res, err := store.MigrateToRefs(ctx, progress)
	if err != nil {
		return fmt.Errorf("migrate checkpoints (run the command again to go on where it stopped): %w", err)
	}
	switch {
	case res.Copied+res.Present == 0:
		fmt.Fprintf(out, "No checkpoint on %s to copy.\n", checkpoint.MetadataBranch)
	default:
		fmt.Fprintf(out, "✓ Copied %d checkpoint(s) from %s into refs under %s", res.Copied, checkpoint.MetadataBranch, checkpoint.RefPrefix)
		if res.Present > 0 {
			fmt.Fprintf(out, " (%d were there already)", res.Present)
		}
		fmt.Fprintln(out)
	}
	typ := settings.CheckpointsGitRefs
	edit := settingsEdit{CheckpointsType: &typ}
	changed, err := edit.apply(settings.ProjectPath(repo.Root), nil, false, false)
	if err != nil {
		return err
	}
	// A local checkpoints block replaces the project's whole (SPEC 10.1).
	if _, err := edit.apply(settings.LocalPath(repo.Root), nil, true, false); err != nil {
		return err
	}
	if changed {
		fmt.Fprintf(out, "✓ New checkpoints are stored one ref each (checkpoints.primary.type: git-refs in %s)\n", settings.ProjectRel)
		fmt.Fprintf(out, "Commit %s so that your team moves together: Entire 0.4.x reads only %s.\n", settings.ProjectRel, checkpoint.MetadataBranch)
	} else {
		fmt.Fprintln(out, "✓ The settings already name the git-refs layout")
	}
	if res.Copied+res.Present > 0 {
		fmt.Fprintf(out, "The %s branch is kept. Once every clone has moved, delete it with:\n  git branch -D %s && git push <checkpoint remote> :%s\n",
			checkpoint.MetadataBranch, checkpoint.MetadataBranch, checkpoint.MetadataBranch)
	}
	return nil
}
