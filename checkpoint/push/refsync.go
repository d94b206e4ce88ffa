package push

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Checkpoint refs (SPEC 10.3) are pushed one ref each: the refs a write
// moved wait in the store's queue (checkpoint.Store.Queue) until a push
// lands them. A push is never forced; a ref the remote rejects because
// its copy moved (a teammate added to the same checkpoint) is fetched, the
// two versions are joined by session (mergeCheckpoint) in a commit on top
// of the remote's, and pushed again.

// refsPerPush bounds the refspecs of one `git push` (a migrated history
// queues thousands of refs).
const refsPerPush = 500

// maxSyncRefs is how many queued refs the pre-push hook pushes itself;
// more go to the background push.
const maxSyncRefs = 100

// syncRefPrefix holds a rejected ref's remote copy while it is joined;
// outside refs/entire/, so that no sync of ours ever pushes it.
const syncRefPrefix = "refs/entire-sync/"

// slowRefPush is how long a push of a few checkpoint refs may have taken
// for the next to be made while git waits.
const slowRefPush = time.Second

// refPushTimes (in the git common directory) holds how long the last push
// of checkpoint refs by the pre-push hook took, to each destination:
// "<name> <ms>" lines. Background pushes do not count (they would make a
// slow remote look fast again, and the next hook wait for it); a day old,
// the file is forgotten, so that a remote that was slow once is tried
// again.
const refPushTimes = "entire-checkpoint-push-ms"

// refPushMemory is how long refPushTimes is believed.
const refPushMemory = 24 * time.Hour

// lastRefPush returns how long the last push of checkpoint refs to the
// destination named name took (zero when unknown).
func lastRefPush(repo *gitrepo.Repo, name string) time.Duration {
	path := filepath.Join(repo.CommonDir, refPushTimes)
	if fi, err := os.Stat(path); err != nil || time.Since(fi.ModTime()) > refPushMemory {
		return 0
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 64<<10 {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if n, ms, ok := strings.Cut(line, " "); ok && n == name {
			if v, err := strconv.Atoi(ms); err == nil && v > 0 {
				return time.Duration(v) * time.Millisecond
			}
		}
	}
	return 0
}

// rememberRefPush records d as the last push time to the destination
// named name (best effort: a lost write only costs one slow push).
func rememberRefPush(repo *gitrepo.Repo, name string, d time.Duration) {
	if strings.ContainsAny(name, " \n") {
		return
	}
	path := filepath.Join(repo.CommonDir, refPushTimes)
	var lines []string
	if data, err := os.ReadFile(path); err == nil && len(data) <= 64<<10 {
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if n, _, ok := strings.Cut(line, " "); ok && n != name {
				lines = append(lines, line)
			}
		}
	}
	lines = append(lines, fmt.Sprintf("%s %d", name, d.Milliseconds()))
	_ = atomicfile.Write(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// refTarget is a queued checkpoint ref to push.
type refTarget struct {
	id  checkpoint.ID
	tip plumbing.Hash
}

// prePushRefs is PrePush of the queued checkpoint refs.
func (r *runner) prePushRefs(ctx context.Context, dest Destination, opts Options, start time.Time, log io.Writer) error {
	cpName := dest.Name()
	warn := func(err error) {
		fmt.Fprintf(log, "[entire] could not push checkpoints to %s: %v\n", cpName, err)
	}
	store := checkpoint.NewStore(r.repo, opts.Now)
	ids, err := store.Queued()
	if err != nil {
		warn(err)
		return nil
	}
	explicit := explicitRefs(opts.Refs)
	var targets []refTarget
	// Refs the user's push names are git's to push, and ours to scan.
	var scanOnly []plumbing.Hash
	for ref := range explicit {
		if h, err := r.repo.ReadRef(plumbing.ReferenceName(ref)); err == nil && !h.IsZero() {
			scanOnly = append(scanOnly, h)
		}
	}
	for _, id := range ids {
		tip, err := r.repo.ReadRef(id.RefName())
		if err != nil {
			warn(err)
			continue
		}
		if tip.IsZero() { // deleted (entire clean): nothing to push
			_ = store.Dequeue(id, tip)
			continue
		}
		if !explicit[string(id.RefName())] {
			targets = append(targets, refTarget{id: id, tip: tip})
		}
	}
	if len(targets) == 0 && len(scanOnly) == 0 {
		return nil
	}
	known, err := knownTips(r.repo, dest)
	if err != nil {
		warn(err)
		return nil
	}
	tips := make([]plumbing.Hash, len(targets))
	for i, t := range targets {
		tips[i] = t.tip
	}
	// What git is about to push itself is scanned first, whatever
	// happens to the queue.
	if err := r.scanRefs(ctx, opts, dest, scanOnly, log, warn); err != nil {
		return err
	}
	hook := opts.SyncLimit > 0 && !opts.Background
	if hook && len(targets) > 0 {
		size, err := newBytes(ctx, r.repo, tips, known)
		if err != nil {
			warn(err)
			return nil
		}
		if size > syncBytes || len(targets) > maxSyncRefs {
			fmt.Fprintf(log, "[entire] Pushing %d checkpoint(s) to %s in the background (%s)\n", len(targets), cpName, humanBytes(size))
			return ErrBackground
		}
		if last := lastRefPush(r.repo, cpName); last >= slowRefPush {
			// The remote takes long over any push (a receive-pack
			// checking tens of thousands of refs): not while git waits.
			fmt.Fprintf(log, "[entire] Pushing %d checkpoint(s) to %s in the background (its last push took %.1f s)\n", len(targets), cpName, last.Seconds())
			return ErrBackground
		}
	}
	if err := r.scanRefs(ctx, opts, dest, tips, log, warn); err != nil {
		return err
	}
	if len(targets) == 0 {
		return nil
	}
	deadline := opts.deadline(start)
	fmt.Fprintf(log, "[entire] Pushing %d checkpoint(s) to %s...\n", len(targets), cpName)
	pushStart := time.Now()
	left, err := r.pushRefsUntilLanded(ctx, dest, store, targets, deadline, log)
	if hook {
		rememberRefPush(r.repo, cpName, time.Since(pushStart))
	}
	if len(left) > 0 && hook && time.Until(deadline) < minAttempt {
		return ErrBackground
	}
	if err != nil {
		warn(err)
	}
	if len(left) > 0 {
		fmt.Fprintf(log, "[entire] %d checkpoint(s) not yet on %s; the next push tries again\n", len(left), cpName)
	}
	return nil
}

// scanRefs scans what pushing tips sends with opts.Redactor (the objects
// no remote-tracking ref of dest's entire branches reaches) and returns
// an error wrapping ErrSecretsFound, said on log, when it finds any. A
// scan that fails is a warning.
func (r *runner) scanRefs(ctx context.Context, opts Options, dest Destination, tips []plumbing.Hash, log io.Writer, warn func(error)) error {
	if opts.Redactor == nil || len(tips) == 0 {
		return nil
	}
	targets := make([]target, len(tips))
	for i, h := range tips {
		targets[i] = target{tip: h}
	}
	n, err := scanOutgoing(ctx, r.repo, opts.Redactor, opts.RulesFingerprint, dest, targets)
	if err != nil {
		warn(err)
		return nil
	}
	if n > 0 {
		fmt.Fprintf(log, "[entire] Not pushing checkpoints to %s: %d secret(s) in data it does not have yet; see `entire doctor --secrets`\n", dest.Name(), n)
		return fmt.Errorf("%w: %d", ErrSecretsFound, n)
	}
	return nil
}

// explicitRefs returns the checkpoint refs the user's push names as its
// destinations (git's pre-push input): git pushes those itself.
func explicitRefs(refs []byte) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(string(refs), "\n") {
		f := strings.Fields(line)
		if len(f) == 4 && strings.HasPrefix(f[2], checkpoint.RefPrefix) {
			out[f[2]] = true
		}
	}
	return out
}

// pushRefsUntilLanded pushes targets, joining and pushing again those the
// remote rejects for having moved, until all landed or the deadline. Each
// landed ref leaves the queue. It returns the targets left.
func (r *runner) pushRefsUntilLanded(ctx context.Context, dest Destination, store *checkpoint.Store, targets []refTarget, deadline time.Time, log io.Writer) ([]refTarget, error) {
	var failures []error
	pending := targets
	for attempt := 1; len(pending) > 0; attempt++ {
		var rejected, left []refTarget
		for i := 0; i < len(pending); i += refsPerPush {
			batch := pending[i:min(i+refsPerPush, len(pending))]
			rej, failed, err := r.withDeadline(deadline).pushRefs(ctx, dest, store, batch)
			if err != nil {
				failures = append(failures, err)
			}
			rejected, left = append(rejected, rej...), append(left, failed...)
		}
		if len(rejected) == 0 {
			return left, errors.Join(failures...)
		}
		if time.Until(deadline) < minAttempt {
			failures = append(failures, fmt.Errorf("%d checkpoint(s) rejected %d time(s) (the remote moved each time); %w", len(rejected), attempt, errOutOfTime))
			return append(left, rejected...), errors.Join(failures...)
		}
		again, err := r.joinRefs(ctx, dest, store, rejected, deadline)
		if err != nil {
			failures = append(failures, err)
		}
		if len(again) == 0 && err != nil {
			return append(left, rejected...), errors.Join(failures...)
		}
		if len(left) > 0 {
			// A failure that is not a rejection is not retried here.
			return append(left, again...), errors.Join(failures...)
		}
		pending = again
	}
	return nil, errors.Join(failures...)
}

// pushRefs pushes targets to dest in one call, never forced. It dequeues
// the refs that landed and returns those rejected for being behind (worth
// a join) and those that failed otherwise.
func (r *runner) pushRefs(ctx context.Context, dest Destination, store *checkpoint.Store, targets []refTarget) (rejected, failed []refTarget, err error) {
	args := append(packConfig(), "push", "--porcelain", "--no-verify", "--", dest.arg())
	for _, t := range targets {
		args = append(args, t.tip.String()+":"+string(t.id.RefName()))
	}
	out, runErr := r.run(ctx, args...)
	results := parsePorcelain(out)
	var errs []error
	missing := false
	for _, t := range targets {
		res, ok := results[string(t.id.RefName())]
		switch {
		case !ok:
			missing = true
			failed = append(failed, t)
		case res.flag != '!':
			if err := store.Dequeue(t.id, t.tip); err != nil {
				errs = append(errs, err)
			}
		case retryable(res.summary):
			rejected = append(rejected, t)
		default:
			failed = append(failed, t)
			errs = append(errs, fmt.Errorf("checkpoint %s rejected: %s", t.id, res.summary))
		}
	}
	if runErr != nil && (missing || (len(rejected) == 0 && len(errs) == 0)) {
		errs = append([]error{runErr}, errs...)
	}
	return rejected, failed, errors.Join(errs...)
}

// joinRefs fetches the remote's copies of the rejected refs and joins
// each local ref with its copy: the local ref moves to the remote's commit
// when that has everything of ours, else to a commit on top of it whose
// tree joins both by session. It returns what to push next.
func (r *runner) joinRefs(ctx context.Context, dest Destination, store *checkpoint.Store, rejected []refTarget, deadline time.Time) ([]refTarget, error) {
	args := append(packConfig(), "-c", "gc.auto=0", "-c", "maintenance.auto=false", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--", dest.arg())
	for _, t := range rejected {
		args = append(args, "+"+string(t.id.RefName())+":"+string(syncRef(t.id)))
	}
	defer func() {
		for _, t := range rejected {
			if h, err := r.repo.ReadRef(syncRef(t.id)); err == nil && !h.IsZero() {
				_ = r.repo.DeleteRef(context.WithoutCancel(ctx), syncRef(t.id), h)
			}
		}
	}()
	if _, err := r.withDeadline(deadline).run(ctx, args...); err != nil {
		return nil, fmt.Errorf("fetch %d checkpoint(s) from %s: %w", len(rejected), dest.Name(), err)
	}
	var again []refTarget
	var errs []error
	for _, t := range rejected {
		remote, err := r.repo.ReadRef(syncRef(t.id))
		if err != nil || remote.IsZero() {
			errs = append(errs, fmt.Errorf("checkpoint %s: the remote's copy was not fetched", t.id))
			continue
		}
		next, err := joinCheckpoint(ctx, r.repo, t.id, t.tip, remote, store)
		if err != nil {
			errs = append(errs, fmt.Errorf("checkpoint %s: %w", t.id, err))
			continue
		}
		if err := r.repo.UpdateRef(t.id.RefName(), next, t.tip); err != nil {
			errs = append(errs, fmt.Errorf("checkpoint %s moved while it was joined: %w", t.id, err))
			continue
		}
		if next == remote {
			_ = store.Dequeue(t.id, next) // the remote has all of it
			continue
		}
		again = append(again, refTarget{id: t.id, tip: next})
	}
	return again, errors.Join(errs...)
}

// syncRef is where joinRefs fetches the remote's copy of checkpoint id.
func syncRef(id checkpoint.ID) plumbing.ReferenceName {
	return plumbing.ReferenceName(syncRefPrefix + string(id))
}

// joinCheckpoint returns the commit checkpoint id's ref moves to when its
// local commit is local and the remote's is remote: remote itself when it
// has local in its history (or the same tree), else a commit on top of
// remote whose tree joins both versions by session slot.
func joinCheckpoint(ctx context.Context, repo *gitrepo.Repo, id checkpoint.ID, local, remote plumbing.Hash, store *checkpoint.Store) (plumbing.Hash, error) {
	if ok, err := isAncestor(ctx, repo, local, remote); err == nil && ok {
		return remote, nil
	}
	lc, err := repo.Git.CommitObject(local)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	rc, err := repo.Git.CommitObject(remote)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if lc.TreeHash == rc.TreeHash {
		return remote, nil
	}
	m := &treeMerger{repo: repo, checkpoints: true}
	tree, err := m.mergeCheckpoint(lc.TreeHash, rc.TreeHash, id, "")
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if tree == rc.TreeHash {
		return remote, nil
	}
	sig := repo.Author(time.Now())
	msg := fmt.Sprintf("Checkpoint: %s\n\nJoined with the checkpoint remote's copy.\n", id)
	return repo.WriteCommit(&object.Commit{Author: sig, Committer: sig, TreeHash: tree, ParentHashes: []plumbing.Hash{remote}, Message: msg})
}
