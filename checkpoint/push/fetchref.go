package push

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/secretscan"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
)

// FetchCheckpoints brings checkpoints stored as refs (SPEC 10.3) from
// dest into this repository, each by its one ref
// (refs/entire/checkpoints/<last two>/<id>, fetched into the ref of the
// same name, never forced): one `git ls-remote` for the refs asked, then
// one `git fetch` of those the destination has, both bounded by timeout
// (zero: DefaultTimeout) and ctx. Nothing else of the destination is
// fetched. It returns the IDs the destination does not have.
func FetchCheckpoints(ctx context.Context, repo *gitrepo.Repo, dest Destination, ids []checkpoint.ID, timeout time.Duration) (missing []checkpoint.ID, err error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if !dest.Fetches() {
		return nil, fmt.Errorf("%w: %s", ErrLocal, dest.Local)
	}
	r := &runner{repo: repo, timeout: timeoutOr(timeout), env: dest.env}
	args := []string{"ls-remote", "--refs", "--", dest.arg(), string(secretscan.PurgesRef)}
	for _, id := range ids {
		args = append(args, string(id.RefName()))
	}
	out, err := r.run(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("list checkpoints on %s: %w", dest.Name(), err)
	}
	has := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if _, ref, ok := strings.Cut(sc.Text(), "\t"); ok {
			has[ref] = true
		}
	}
	fetch := append(packConfig(), "-c", "gc.auto=0", "-c", "maintenance.auto=false", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--", dest.arg())
	n := 0
	for _, id := range ids {
		if !has[string(id.RefName())] {
			missing = append(missing, id)
			continue
		}
		fetch = append(fetch, string(id.RefName())+":"+string(id.RefName()))
		n++
	}
	if n == 0 {
		return missing, nil
	}
	// The record of purged checkpoints comes along: this clone's guard
	// then refuses history it names.
	purges := has[string(secretscan.PurgesRef)]
	if purges {
		fetch = append(fetch, "+"+string(secretscan.PurgesRef)+":"+string(syncPurgesRef))
	}
	if _, err := r.run(ctx, fetch...); err != nil {
		return nil, fmt.Errorf("fetch %d checkpoint(s) from %s: %w", n, dest.Name(), err)
	}
	if purges {
		if err := adoptPurges(ctx, repo); err != nil {
			return missing, fmt.Errorf("the purge record of %s: %w", dest.Name(), err)
		}
	}
	return missing, nil
}

// syncPurgesRef holds the remote's purge record while it is joined with
// this clone's.
const syncPurgesRef = plumbing.ReferenceName(syncRefPrefix + "purges")

// adoptPurges joins the fetched purge record (syncPurgesRef) into this
// clone's (secretscan.PurgesRef): taken as it is when this clone has none
// or has all of it in its history, else a commit on top of it holding
// both records.
func adoptPurges(ctx context.Context, repo *gitrepo.Repo) error {
	theirs, err := repo.ReadRef(syncPurgesRef)
	if err != nil || theirs.IsZero() {
		return err
	}
	defer func() { _ = repo.DeleteRef(context.WithoutCancel(ctx), syncPurgesRef, theirs) }()
	_, err = repo.UpdateRefFunc(ctx, secretscan.PurgesRef, func(ours plumbing.Hash) (plumbing.Hash, error) {
		if ours.IsZero() || ours == theirs {
			return theirs, nil
		}
		if ok, err := isAncestor(ctx, repo, theirs, ours); err != nil || ok {
			return ours, err
		}
		if ok, err := isAncestor(ctx, repo, ours, theirs); err != nil || ok {
			return theirs, err
		}
		all, err := secretscan.ReadPurges(repo, ours)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		other, err := secretscan.ReadPurges(repo, theirs)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		all.Merge(other)
		return secretscan.WritePurges(repo, theirs, all, "Join purge records\n", time.Now())
	})
	return err
}
