package push

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/secretscan"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Many clones push to one metadata branch: a push the remote rejects
// because another clone's landed first is joined with the remote's branch
// and pushed again, after a random pause that grows with each attempt (so
// that the clones that lost a round do not meet again in the next), until
// it lands or the push budget is spent.

// DefaultBudget bounds all of PrePush's attempts together when
// Options.Budget is zero: with git's own push after it, a push stays under
// half a minute.
const DefaultBudget = 20 * time.Second

// Retry pauses: none before the first retry (a teammate's push since the
// last fetch is the everyday case, and the fetch and merge spread the
// clones already), then about retryBase, each next one twice the last up
// to retryMax, every one drawn from half to one and a half times that.
const (
	retryBase = 100 * time.Millisecond
	retryMax  = 2 * time.Second
)

// errOutOfTime is wrapped by pushUntilLanded's error when the push's time
// ran out with branches still rejected.
var errOutOfTime = errors.New("out of time")

// minAttempt is the least time left in the budget worth another attempt
// (a fetch, a merge and a push).
const minAttempt = 300 * time.Millisecond

// retryPause returns the pause before attempt n (1 for the first retry).
func retryPause(n int) time.Duration {
	if n <= 1 {
		return 0
	}
	d := retryBase << min(n-2, 8)
	d = min(d, retryMax)
	return d/2 + time.Duration(rand.Int64N(int64(d)))
}

// pushUntilLanded pushes targets to remote and, while the remote rejects
// some for being behind, fetches them, joins them (reconcile) and pushes
// again, until all landed or the deadline. It returns the branches that
// did not land and every failure on the way (a branch that failed for
// another reason is not retried; the others go on).
func (r *runner) pushUntilLanded(ctx context.Context, dest Destination, targets []target, deadline time.Time, now func() time.Time, log io.Writer) ([]string, error) {
	var failures []error
	pending := targets
	for attempt := 1; ; attempt++ {
		rejected, err := r.withDeadline(deadline).push(ctx, dest, pending)
		if err != nil {
			failures = append(failures, err)
			if len(rejected) == 0 {
				return names(pending), errors.Join(failures...)
			}
		}
		if len(rejected) == 0 {
			return nil, errors.Join(failures...)
		}
		pause := retryPause(attempt)
		if time.Until(deadline) < pause+minAttempt {
			failures = append(failures, fmt.Errorf("%s rejected %d time(s) (the remote moved each time); %w", strings.Join(rejected, ", "), attempt, errOutOfTime))
			return rejected, errors.Join(failures...)
		}
		select {
		case <-ctx.Done():
			return rejected, errors.Join(append(failures, ctx.Err())...)
		case <-time.After(pause):
		}
		again, err := r.join(ctx, dest, rejected, deadline, now, log)
		if err != nil {
			failures = append(failures, err)
			if len(again) == 0 {
				return rejected, errors.Join(failures...)
			}
		}
		if len(again) == 0 {
			return nil, errors.Join(failures...) // the remote holds all of it already
		}
		pending = again
	}
}

// join fetches the rejected branches (and the metadata branch, whose purge
// record decides how the others are joined) and joins each local branch
// with its remote tip. It returns what to push next: the joined tips that
// the remote lacks.
func (r *runner) join(ctx context.Context, dest Destination, rejected []string, deadline time.Time, now func() time.Time, log io.Writer) ([]target, error) {
	absent, err := r.fetchPresent(ctx, dest, withBranch(rejected, checkpoint.MetadataBranch), deadline)
	if err != nil {
		return nil, err
	}
	repo := r.repo
	// A metadata ref that cannot be read would look like "no purges" and
	// let purged history be joined back in: nothing is joined then.
	localMeta, lerr := repo.ReadRef(headRef(checkpoint.MetadataBranch))
	remoteMeta, rerr := repo.ReadRef(dest.TrackingRef(checkpoint.MetadataBranch))
	if err := errors.Join(lerr, rerr); err != nil {
		return nil, err
	}
	if slices.Contains(absent, checkpoint.MetadataBranch) {
		remoteMeta = plumbing.ZeroHash // a stale tracking ref holds no purge of the remote's
	}
	purges, err := purgesOf(repo, localMeta, remoteMeta)
	if err != nil {
		return nil, err
	}
	var again []target
	var errs []error
	for _, b := range rejected {
		if slices.Contains(absent, b) {
			// Refused as busy, yet not there: the push that held it
			// failed too. Nothing to join: push it again as it is.
			tip, err := repo.ReadRef(headRef(b))
			if err != nil || tip.IsZero() {
				errs = append(errs, fmt.Errorf("%s was deleted during the push", b))
				continue
			}
			again = append(again, target{branch: b, tip: tip})
			continue
		}
		remoteTip, err := repo.ReadRef(dest.TrackingRef(b))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if remoteTip.IsZero() {
			errs = append(errs, fmt.Errorf("fetch %s: no remote-tracking ref after the fetch", b))
			continue
		}
		force, dropped := false, false
		joined, err := repo.UpdateRefFunc(ctx, headRef(b), func(cur plumbing.Hash) (plumbing.Hash, error) {
			if cur.IsZero() {
				return plumbing.ZeroHash, fmt.Errorf("%s was deleted during the push", b)
			}
			tip, f, err := reconcile(ctx, repo, b, cur, remoteTip, purges, MergeOptions{Checkpoints: b == checkpoint.MetadataBranch, Now: now})
			force, dropped = f, f || (err == nil && tip != cur && !isDescendant(ctx, repo, tip, cur))
			return tip, err
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("merge %s: %w", b, err))
			continue
		}
		if dropped {
			// Purged history left this branch: nothing local may keep it.
			if err := secretscan.ExpireReflogs(ctx, repo, b); err != nil {
				errs = append(errs, err)
			}
		}
		if force {
			fmt.Fprintf(log, "[entire] %s on %s holds history a purge removed: replacing it\n", b, dest.Name())
		}
		if joined != remoteTip {
			again = append(again, target{branch: b, tip: joined, tracking: remoteTip, lease: force})
		}
	}
	return again, errors.Join(errs...)
}

// fetchPresent fetches branches from remote into their remote-tracking
// refs, every call ending by deadline, and returns the ones the remote does
// not have (git fetch fails as a whole on one missing ref: then each is
// fetched on its own).
func (r *runner) fetchPresent(ctx context.Context, dest Destination, branches []string, deadline time.Time) (absent []string, err error) {
	err = r.withDeadline(deadline).fetch(ctx, dest, branches)
	if err == nil || !isMissingRemoteRef(err) {
		return nil, err
	}
	for _, b := range branches {
		if err := r.withDeadline(deadline).fetch(ctx, dest, []string{b}); isMissingRemoteRef(err) {
			absent = append(absent, b)
		} else if err != nil {
			return nil, err
		}
	}
	return absent, nil
}

// isMissingRemoteRef reports whether err is git fetch's answer for a ref
// the remote does not have.
func isMissingRemoteRef(err error) bool {
	return err != nil && strings.Contains(err.Error(), "couldn't find remote ref")
}

// withDeadline returns a copy of r whose calls end by deadline.
func (r *runner) withDeadline(deadline time.Time) *runner {
	c := *r
	c.timeout = max(min(r.timeout, time.Until(deadline)), time.Millisecond)
	return &c
}

func names(ts []target) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.branch
	}
	return out
}

// Unpushed returns the checkpoints of the local metadata branch that the
// destination's, as last fetched or pushed (its remote-tracking ref), lacks
// or holds in an older version (a session added since), sorted, then the
// checkpoint refs waiting in the push queue. Only the shards whose trees
// differ are read.
func Unpushed(repo *gitrepo.Repo, dest Destination) ([]checkpoint.ID, error) {
	ids, err := unpushedOnBranch(repo, dest)
	if err != nil {
		return nil, err
	}
	// Checkpoint refs (SPEC 10.3) wait in the push queue until one lands.
	queued, err := checkpoint.NewStore(repo, nil).Queued()
	if err != nil {
		return nil, err
	}
	return append(ids, queued...), nil
}

// unpushedOnBranch is Unpushed of the metadata branch.
func unpushedOnBranch(repo *gitrepo.Repo, dest Destination) ([]checkpoint.ID, error) {
	local, err := repo.ReadRef(headRef(checkpoint.MetadataBranch))
	if err != nil || local.IsZero() {
		return nil, err
	}
	remoteTip, err := repo.ReadRef(dest.TrackingRef(checkpoint.MetadataBranch))
	if err != nil || remoteTip == local {
		return nil, err
	}
	lt, err := repo.CommitTree(local)
	if err != nil {
		return nil, err
	}
	rt, err := repo.CommitTree(remoteTip) // nil when the remote has none
	if err != nil {
		return nil, err
	}
	var out []checkpoint.ID
	for _, shard := range lt.Entries {
		if len(shard.Name) != 2 || shard.Mode != filemode.Dir {
			continue
		}
		var remoteShard *plumbing.Hash
		if rt != nil {
			if e, err := rt.FindEntry(shard.Name); err == nil {
				remoteShard = &e.Hash
			}
		}
		if remoteShard != nil && *remoteShard == shard.Hash {
			continue
		}
		ls, err := repo.Git.TreeObject(shard.Hash)
		if err != nil {
			continue // not a tree: not a shard
		}
		var rs map[string]plumbing.Hash
		if remoteShard != nil {
			if t, err := repo.Git.TreeObject(*remoteShard); err == nil {
				rs = make(map[string]plumbing.Hash, len(t.Entries))
				for _, e := range t.Entries {
					rs[e.Name] = e.Hash
				}
			}
		}
		for _, e := range ls.Entries {
			id, ok := checkpointID(shard.Name + "/" + e.Name)
			if !ok {
				continue
			}
			if h, there := rs[e.Name]; !there || h != e.Hash {
				out = append(out, id)
			}
		}
	}
	return out, nil
}

// DescribeUnpushed returns the line naming the checkpoints not yet on remote
// (at most a few by ID), or "" when there are none.
func DescribeUnpushed(ids []checkpoint.ID, remote string) string {
	if len(ids) == 0 {
		return ""
	}
	const shown = 5
	var list []string
	for i, id := range ids {
		if i == shown {
			list = append(list, fmt.Sprintf("and %d more", len(ids)-shown))
			break
		}
		list = append(list, string(id))
	}
	return fmt.Sprintf("%d checkpoint(s) not yet on %s: %s; the next push sends them", len(ids), remote, strings.Join(list, ", "))
}
