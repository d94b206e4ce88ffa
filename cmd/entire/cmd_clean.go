package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/spf13/cobra"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/logging"
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

// orphans are the items clean found, each list sorted.
type orphans struct {
	Branches    []string
	Sessions    []string
	Checkpoints []checkpoint.ID
}

func (o orphans) count() int { return len(o.Branches) + len(o.Sessions) + len(o.Checkpoints) }

// sessionStateMinAge is how old a session state must be to count as
// orphaned (a younger one may belong to a session that has not saved yet).
const sessionStateMinAge = 10 * time.Minute

// checkpointRefScan bounds the commits read per branch when looking for
// Entire-Checkpoint trailers.
const checkpointRefScan = 1000

func runClean(ctx context.Context, opts *cleanOptions) error {
	f := opts.f
	repo, err := f.OpenRepo()
	if err != nil {
		return err
	}
	log := logging.Open(logging.Options{RepoRoot: repo.Root, Settings: loadSettings(repo), Getenv: f.Getenv, Fallback: f.IO.ErrOut})
	defer log.Close()
	store := sessionStore(f, repo)
	found, err := findOrphans(ctx, f, repo, store)
	if err != nil {
		return err
	}
	out := f.IO.Out
	if found.count() == 0 {
		fmt.Fprintln(out, "No orphaned items to clean up.")
		return nil
	}
	if !opts.Force {
		fmt.Fprintf(out, "Found %d orphaned items:\n", found.count())
		printOrphans(out, found)
		fmt.Fprintln(out, "\nRun with --force to delete these items.")
		return nil
	}
	deleted, failed := deleteOrphans(ctx, repo, store, found)
	for _, fl := range failed {
		log.Warn("clean: delete failed", "item", fl)
	}
	log.Info("clean", "deleted", deleted.count(), "failed", len(failed))
	if deleted.count() > 0 {
		fmt.Fprintf(out, "Deleted %d items:\n", deleted.count())
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
func printOrphans(w io.Writer, o orphans) {
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

// findOrphans collects the orphaned items (SPEC 5.7, without the original's
// quirk of listing the shadow branches of sessions still in progress).
func findOrphans(ctx context.Context, f *factory, repo *gitrepo.Repo, store *session.Store) (orphans, error) {
	var o orphans
	states, _, err := store.List()
	if err != nil {
		return o, err
	}
	inUse := map[string]bool{}
	for _, st := range states {
		if st.BaseCommit != "" {
			inUse[checkpoint.ShadowBranchName(st.BaseCommit, st.WorktreeID)] = true
		}
	}
	refs, err := repo.ListRefs("refs/heads/entire/")
	if err != nil {
		return o, err
	}
	existing := map[string]bool{}
	for ref := range refs {
		name := ref.Short()
		if _, _, ok := checkpoint.ParseShadowBranch(name); !ok || name == checkpoint.MetadataBranch {
			continue
		}
		existing[name] = true
		if !inUse[name] {
			o.Branches = append(o.Branches, name)
		}
	}
	sort.Strings(o.Branches)

	withCheckpoints, err := sessionsWithCheckpoints(ctx, repo)
	if err != nil {
		return o, err
	}
	now := f.Now()
	for _, st := range states {
		last := st.StartedAt
		if st.LastInteractionTime != nil && st.LastInteractionTime.After(last) {
			last = *st.LastInteractionTime
		}
		if st.Phase == session.PhaseActive || now.Sub(last) < sessionStateMinAge ||
			st.LastCheckpointID != "" || withCheckpoints[st.SessionID] {
			continue
		}
		if st.BaseCommit != "" && existing[checkpoint.ShadowBranchName(st.BaseCommit, st.WorktreeID)] {
			continue
		}
		o.Sessions = append(o.Sessions, st.SessionID)
	}
	sort.Strings(o.Sessions)

	o.Checkpoints, err = orphanedAutoCommitCheckpoints(ctx, repo)
	return o, err
}

// sessionsWithCheckpoints returns the session IDs named by an
// Entire-Session trailer on the metadata branch (one git log).
func sessionsWithCheckpoints(ctx context.Context, repo *gitrepo.Repo) (map[string]bool, error) {
	ids := map[string]bool{}
	if tip, err := repo.ReadRef(checkpoint.MetadataRef); err != nil || tip.IsZero() {
		return ids, err
	}
	out, err := repo.RunGit(ctx, "log", "--format=%B%x00", string(checkpoint.MetadataRef))
	if err != nil {
		return nil, err
	}
	for _, msg := range strings.Split(string(out), "\x00") {
		for _, id := range checkpoint.ParseTrailers(msg).Sessions() {
			ids[id] = true
		}
	}
	return ids, nil
}

// orphanedAutoCommitCheckpoints returns the auto-commit checkpoints that
// no commit among the last 1000 of any local non-entire branch links to.
func orphanedAutoCommitCheckpoints(ctx context.Context, repo *gitrepo.Repo) ([]checkpoint.ID, error) {
	store := checkpoint.NewStore(repo, time.Now)
	ids, err := store.List()
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	var auto []checkpoint.ID
	for _, id := range ids {
		cp, err := store.Read(id)
		if err != nil {
			continue // unreadable: not ours to judge
		}
		if cp.Root.Strategy == checkpoint.StrategyAutoCommit {
			auto = append(auto, id)
		}
	}
	if len(auto) == 0 {
		return nil, nil
	}
	linked, err := linkedCheckpoints(ctx, repo)
	if err != nil {
		return nil, err
	}
	var out []checkpoint.ID
	for _, id := range auto {
		if !linked[id] {
			out = append(out, id)
		}
	}
	return out, nil
}

// linkedCheckpoints returns the checkpoint IDs of the Entire-Checkpoint
// trailers in the last 1000 commits of every local branch outside entire/.
func linkedCheckpoints(ctx context.Context, repo *gitrepo.Repo) (map[checkpoint.ID]bool, error) {
	refs, err := repo.ListRefs("refs/heads/")
	if err != nil {
		return nil, err
	}
	linked := map[checkpoint.ID]bool{}
	for ref := range refs {
		if strings.HasPrefix(ref.Short(), "entire/") {
			continue
		}
		out, err := repo.RunGit(ctx, "log", "-n", fmt.Sprint(checkpointRefScan), "--format=%B%x00", string(ref))
		if err != nil {
			return nil, err
		}
		for _, msg := range strings.Split(string(out), "\x00") {
			for _, id := range checkpoint.CheckpointsOf(msg) { // squashes carry several
				linked[id] = true
			}
		}
	}
	return linked, nil
}

// deleteOrphans deletes what findOrphans found and returns what was
// deleted and a description of each failure.
func deleteOrphans(ctx context.Context, repo *gitrepo.Repo, store *session.Store, found orphans) (orphans, []string) {
	var done orphans
	var failed []string
	for _, b := range found.Branches {
		tip, err := repo.ReadRef(checkpoint.ShadowRef(b))
		if err == nil {
			err = repo.DeleteRef(ctx, checkpoint.ShadowRef(b), tip)
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("shadow branch %s: %v", b, err))
			continue
		}
		done.Branches = append(done.Branches, b)
	}
	for _, id := range found.Sessions {
		if err := store.Delete(id); err != nil {
			failed = append(failed, fmt.Sprintf("session state %s: %v", id, err))
			continue
		}
		done.Sessions = append(done.Sessions, id)
	}
	if len(found.Checkpoints) > 0 {
		if err := removeCheckpoints(ctx, repo, found.Checkpoints); err != nil {
			failed = append(failed, fmt.Sprintf("checkpoint metadata (%d): %v", len(found.Checkpoints), err))
		} else {
			done.Checkpoints = found.Checkpoints
		}
	}
	return done, failed
}

// removeCheckpoints deletes checkpoints from the metadata branch in one
// commit "Cleanup: removed N orphaned checkpoints", by Entire CLI
// <cli@entire.io> with the parent's timestamps (SPEC 3.7).
func removeCheckpoints(ctx context.Context, repo *gitrepo.Repo, ids []checkpoint.ID) error {
	_, err := repo.UpdateRefFunc(ctx, checkpoint.MetadataRef, func(tip plumbing.Hash) (plumbing.Hash, error) {
		if tip.IsZero() {
			return tip, nil
		}
		parent, err := repo.Git.CommitObject(tip)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		changes := make([]gitrepo.Change, len(ids))
		for i, id := range ids {
			changes[i] = gitrepo.Change{Path: id.Shard(), Delete: true}
		}
		tree, err := repo.BuildTree(parent.TreeHash, changes)
		if err != nil || tree == parent.TreeHash {
			return tip, err
		}
		author := object.Signature{Name: "Entire CLI", Email: "cli@entire.io", When: parent.Author.When}
		committer := object.Signature{Name: "Entire CLI", Email: "cli@entire.io", When: parent.Committer.When}
		return repo.WriteCommit(&object.Commit{
			Author: author, Committer: committer, TreeHash: tree, ParentHashes: []plumbing.Hash{tip},
			Message: fmt.Sprintf("Cleanup: removed %d orphaned checkpoints\n", len(ids)),
		})
	})
	return err
}
