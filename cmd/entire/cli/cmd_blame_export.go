package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/entirecli/entire/explain"
	"github.com/go-git/go-git/v5/plumbing"
)

// maxExportCommits bounds the commits one export writes notes for.
const maxExportCommits = 100000

// runExportGitAI writes the line attribution of a range of commits as
// git-ai notes.
func runExportGitAI(ctx context.Context, opts *blameOptions) error {
	f := opts.f
	rng := opts.ExportAI
	if strings.HasPrefix(rng, "-") {
		return usageErrorf("invalid range %q", rng)
	}
	repo, err := f.OpenRepo()
	if err != nil {
		return err
	}
	args := []string{"rev-list", "--reverse", "--max-count=" + fmt.Sprint(maxExportCommits), rng, "--"}
	if !strings.Contains(rng, "..") {
		args = []string{"rev-list", "--no-walk", rng, "--"}
	}
	out, err := repo.RunGit(ctx, args...)
	if err != nil {
		return usageErrorf("invalid range %q: %v", rng, err)
	}
	var commits []plumbing.Hash
	for _, l := range strings.Fields(string(out)) {
		commits = append(commits, plumbing.NewHash(l))
	}
	res, err := newBlamer(ctx, f, repo).ExportGitAI(ctx, commits)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IO.Out, "Wrote %d git-ai note(s) to %s (%d commit(s) without agent lines", res.Written, explain.GitAINotesRef, res.Skipped)
	if res.Kept > 0 {
		fmt.Fprintf(f.IO.Out, ", %d note(s) git-ai wrote kept", res.Kept)
	}
	fmt.Fprintln(f.IO.Out, ").")
	if res.Written > 0 {
		fmt.Fprintf(f.IO.Out, "Share them with: git push <remote> %s:%s\n", explain.GitAINotesRef, explain.GitAINotesRef)
	}
	return nil
}
