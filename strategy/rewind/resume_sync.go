package rewind

import (
	"context"
	"fmt"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/push"
	"github.com/entirecli/entire/hide"
	"github.com/entirecli/entire/internal/settings"
	"github.com/entirecli/entire/notes"
	"github.com/go-git/go-git/v5/plumbing"
)

// settings returns the repository's settings, the defaults when they
// cannot be read (checkpoint data then stays local: see push.Resolve).
func (r *resumer) settings() *settings.Settings {
	return settings.LoadOrDefaults(r.Repo.Root)
}

// destination is where checkpoint data is fetched from.
func (r *resumer) destination(ctx context.Context, s *settings.Settings) push.Destination {
	return push.Resolve(ctx, r.Repo, s, push.ResolveOptions{Getenv: r.Getenv})
}

// syncMetadata brings checkpoint metadata from the checkpoint destination
// into the local metadata branch: first what was already fetched (its
// remote-tracking ref); then, when has still
// reports false, a fetch bounded by strategy_options.push_timeout. The local
// branch is created from the remote one, fast-forwarded, or merged with it
// as pre-push merges (no checkpoint is lost on either side). A failed fetch
// is reported and not an error.
func (r *resumer) syncMetadata(ctx context.Context, has func() bool) error {
	s := r.settings()
	dest := r.destination(ctx, s)
	tracking := dest.TrackingRef(checkpoint.MetadataBranch)
	if dest.Fetches() {
		if err := r.integrateMetadata(ctx, tracking); err != nil || has() {
			return err
		}
	}
	if !dest.Fetches() {
		if !dest.NoRemote {
			r.printf("Not fetching session metadata: %s\n", dest.Local)
		}
		return nil // nothing to fetch from
	}
	r.printf("Fetching session metadata from %s...\n", dest.Name())
	if err := push.FetchBranch(ctx, r.Repo, dest, checkpoint.MetadataBranch, s.PushTimeout()); err != nil {
		r.printf("Could not fetch session metadata: %v\n", err)
		return nil
	}
	return r.integrateMetadata(ctx, tracking)
}

// syncRefs fetches, each by its one ref (SPEC 10.3), the checkpoints of
// ids that are not here, from the checkpoint destination, bounded by
// strategy_options.push_timeout. A failed fetch is reported and not an
// error; the v1 branch is the next place to look.
func (r *resumer) syncRefs(ctx context.Context, ids []checkpoint.ID) {
	var absent []checkpoint.ID
	for _, id := range ids {
		if !r.store.Exists(id) {
			absent = append(absent, id)
		}
	}
	s := r.settings()
	dest := r.destination(ctx, s)
	if len(absent) == 0 || !dest.Fetches() {
		return
	}
	r.printf("Fetching %d checkpoint(s) from %s...\n", len(absent), dest.Name())
	missing, err := push.FetchCheckpoints(ctx, r.Repo, dest, absent, s.PushTimeout())
	if err != nil {
		r.printf("Could not fetch the checkpoints: %v\n", err)
		return
	}
	if len(missing) == len(absent) && len(missing) > 0 {
		r.printf("%s has no ref of %s\n", dest.Name(), joinIDs(missing))
	}
}

// integrateMetadata makes the local metadata branch contain the commit at
// tracking (nothing when that ref does not exist).
func (r *resumer) integrateMetadata(ctx context.Context, tracking plumbing.ReferenceName) error {
	repo := r.Repo
	fetched, _ := repo.ReadRef(tracking)
	if fetched.IsZero() {
		return nil
	}
	local, err := repo.ReadRef(checkpoint.MetadataRef)
	if err != nil {
		return err
	}
	next := fetched
	if !local.IsZero() {
		if next, err = push.MergeCommits(ctx, repo, local, fetched, push.MergeOptions{Checkpoints: true, Now: r.Now}); err != nil {
			return fmt.Errorf("merge %s into %s: %w", tracking.Short(), checkpoint.MetadataBranch, err)
		}
	}
	if next == local {
		return nil
	}
	if err := repo.UpdateRef(checkpoint.MetadataRef, next, local); err != nil {
		return fmt.Errorf("update %s: %w", checkpoint.MetadataBranch, err)
	}
	return nil
}

// sideBranches are the entire branches that travel with the metadata
// branch: the hides the sessions made and the agents' notes.
func sideBranches() []string { return []string{hide.BranchRef.Short(), notes.BranchRef.Short()} }

// syncSideBranches fetches the hides and notes branches from the
// checkpoint remote when they are missing here (a fresh clone), bounded by
// strategy_options.push_timeout. Failures are reported, not errors.
func (r *resumer) syncSideBranches(ctx context.Context) {
	repo := r.Repo
	s := r.settings()
	dest := r.destination(ctx, s)
	if !dest.Fetches() {
		return
	}
	for _, b := range sideBranches() {
		local := plumbing.ReferenceName("refs/heads/" + b)
		if h, _ := repo.ReadRef(local); !h.IsZero() {
			continue
		}
		tracking := dest.TrackingRef(b)
		if h, _ := repo.ReadRef(tracking); h.IsZero() {
			if err := push.FetchBranch(ctx, repo, dest, b, s.PushTimeout()); err != nil {
				continue // the remote may simply not have it
			}
		}
		if h, _ := repo.ReadRef(tracking); !h.IsZero() {
			if err := repo.UpdateRef(local, h, plumbing.ZeroHash); err != nil {
				r.printf("Could not create %s: %v\n", b, err)
			}
		}
	}
}

// restoreNotes brings back the notes recorded with the resumed sessions
// (issue 6): always where this machine has no notes for that agent yet,
// and over different local notes only with Force.
func (r *resumer) restoreNotes(ctx context.Context, plans []restorePlan) {
	done := map[string]bool{}
	for i := len(plans) - 1; i >= 0; i-- { // the newest session's notes win
		p := plans[i]
		tree, ok := checkpoint.NotesTree(r.Repo, p.session.TreeHash())
		name := string(p.agent.Name())
		if !ok || done[name] {
			continue
		}
		done[name] = true
		st, err := notes.NewStore(ctx, r.Repo, notes.WithAgent(name))
		if err != nil {
			continue
		}
		cur, err := st.TreeHash(ctx)
		if err != nil || cur == tree {
			continue
		}
		if !cur.IsZero() && !r.Force {
			r.printf("Kept your %s notes, which differ from the checkpoint's (use --force to restore those).\n", name)
			continue
		}
		if err := st.Restore(ctx, tree); err != nil {
			r.printf("Could not restore %s notes: %v\n", name, err)
			continue
		}
		r.printf("Restored %s notes from the checkpoint.\n", name)
	}
}
