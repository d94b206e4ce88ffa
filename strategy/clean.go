package strategy

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/strategy/translog"
)

// Orphans are the items `entire clean` removes (SPEC 5.7), each list
// sorted.
type Orphans struct {
	// Branches are shadow branches that no session state refers to.
	Branches []string
	// Sessions are session states that are not active, older than
	// OrphanSessionMinAge, and have neither a committed checkpoint nor a
	// shadow branch.
	Sessions []string
	// Checkpoints are auto-commit checkpoints that no commit of a local
	// branch links to.
	Checkpoints []checkpoint.ID
}

// Count is the number of items.
func (o Orphans) Count() int { return len(o.Branches) + len(o.Sessions) + len(o.Checkpoints) }

// OrphanSessionMinAge is how old a session state must be to count as
// orphaned (a younger one may belong to a session that has not saved yet).
const OrphanSessionMinAge = 10 * time.Minute

// checkpointRefScan bounds the commits read per branch when looking for
// Entire-Checkpoint trailers.
const checkpointRefScan = 1000

// FindOrphans collects the orphaned items of repo at time now (SPEC 5.7,
// without the original's quirk of listing the shadow branches of sessions
// still in progress).
func FindOrphans(ctx context.Context, repo *gitrepo.Repo, store *session.Store, now time.Time) (Orphans, error) {
	var o Orphans
	states, _, err := store.List()
	if err != nil {
		return o, err
	}
	inUse := map[string]bool{}
	for _, st := range states {
		if st.HoldsShadowBranch() {
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
	for _, st := range states {
		last := st.StartedAt
		if st.LastInteractionTime != nil && st.LastInteractionTime.After(last) {
			last = *st.LastInteractionTime
		}
		if st.Phase == session.PhaseActive || now.Sub(last) < OrphanSessionMinAge ||
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
// Entire-Session trailer on the metadata branch or on a checkpoint ref
// (one git log).
func sessionsWithCheckpoints(ctx context.Context, repo *gitrepo.Repo) (map[string]bool, error) {
	ids := map[string]bool{}
	args := []string{"log", "--format=%B%x00"}
	if tip, err := repo.ReadRef(checkpoint.MetadataRef); err != nil {
		return ids, err
	} else if !tip.IsZero() {
		args = append(args, string(checkpoint.MetadataRef))
	}
	if refs, err := repo.ListRefs(checkpoint.RefPrefix); err != nil {
		return ids, err
	} else if len(refs) > 0 {
		args = append(args, "--glob="+checkpoint.RefPrefix+"*")
	}
	if len(args) == 2 {
		return ids, nil
	}
	out, err := repo.RunGit(ctx, args...)
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

// DeleteOrphans deletes what FindOrphans found and returns what was
// deleted and a description of each failure ("shadow branch <name>: <error>"
// and the like). The checkpoints go in one commit on the metadata branch
// (checkpoint.Store.RemoveOrphaned).
func DeleteOrphans(ctx context.Context, repo *gitrepo.Repo, store *session.Store, found Orphans) (Orphans, []string) {
	var done Orphans
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
		if err := translog.New(repo.CommonDir, id).Remove(); err != nil {
			failed = append(failed, fmt.Sprintf("transcript log %s: %v", id, err))
		}
		done.Sessions = append(done.Sessions, id)
	}
	if len(found.Checkpoints) > 0 {
		if err := checkpoint.NewStore(repo, time.Now).RemoveOrphaned(ctx, found.Checkpoints); err != nil {
			failed = append(failed, fmt.Sprintf("checkpoint metadata (%d): %v", len(found.Checkpoints), err))
		} else {
			done.Checkpoints = found.Checkpoints
		}
	}
	return done, failed
}
