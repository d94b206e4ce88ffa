package push

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/secretscan"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/redact"
	"github.com/go-git/go-git/v5/plumbing"
	format "github.com/go-git/go-git/v5/plumbing/format/config"
)

// DefaultCheckpointRemote is the checkpoint remote when settings name none.
const DefaultCheckpointRemote = "origin"

// ErrBadBranch is returned for a branch that is not an entire/<name>/v1
// branch (a programming error: shadow branches must never be pushed).
var ErrBadBranch = errors.New("push: not an entire/<name>/v1 branch")

// branchPattern is what PrePush and FetchBranch accept: entire/<name>/v1.
// Shadow branches (entire/<sha7>-<hash6>) have no second slash and never
// match.
var branchPattern = regexp.MustCompile(`^entire/[a-z0-9][a-z0-9._-]*/v1$`)

// Options configures PrePush.
type Options struct {
	// Remote is the remote being pushed, as git passes it to the pre-push
	// hook in $1: a remote name, or a URL when pushing to a URL. "" matches
	// no remote.
	Remote string
	// Destination is where the entire branches go (Resolve); the zero
	// value sends nothing.
	Destination Destination
	// PushSessions is settings strategy_options.push_sessions; false makes
	// PrePush do nothing.
	PushSessions bool
	// Timeout bounds each network call (push, fetch); zero means
	// DefaultTimeout. Retries are bounded by Budget.
	Timeout time.Duration
	// Branches are the short branch names to push, each entire/<name>/v1;
	// nil means every local branch of that form.
	Branches []string
	// Log receives "[entire] ..." lines meant for stderr; nil discards them.
	Log io.Writer
	// Now is the clock for merge commits; nil means time.Now.
	Now func() time.Time
	// Env holds extra KEY=VALUE entries for the git commands, after the
	// process environment (GIT_SSH_COMMAND, or a test's HOME).
	Env []string
	// Redactor, when set, scans what the push would send with the rules in
	// force (ErrSecretsFound); nil scans nothing.
	Redactor *redact.Redactor
	// RulesFingerprint identifies Redactor's rules (redact.Fingerprint):
	// with it, large blobs an earlier push scanned clean under the same
	// rules are not read again. "" scans every new blob.
	RulesFingerprint string
	// Explicit are the entire branches the user's own push carries: git
	// pushes them itself (a push by the hook would make git's fail), so
	// PrePush only scans them.
	Explicit []string
	// Budget bounds all the attempts of a push (pushes, fetches, merges)
	// together; zero means DefaultBudget. Each call is bounded by Timeout
	// too.
	Budget time.Duration
	// Refs is git's pre-push input (the refs the user's push sends). When
	// set, and the remote has no branch but entire's, PrePush pushes
	// nothing and returns ErrDeferred. nil skips the check.
	Refs []byte
	// SyncLimit, when set (the pre-push hook), bounds how long PrePush
	// holds the user's push: more than a few megabytes of new data, or a
	// push still running at the limit, is left to a background push
	// (ErrBackground). Zero: no limit but Budget.
	SyncLimit time.Duration
	// Background: this is the background push. Large branches go in
	// batches; zero Budget means BackgroundBudget.
	Background bool
	// BatchBytes is about how much one batch of a background push sends;
	// zero means 16 MB.
	BatchBytes int64
}

// ErrSecretsFound is returned (wrapped) by PrePush when the objects it
// would push hold secrets by the rules in force: it pushed nothing.
var ErrSecretsFound = errors.New("push: secrets in session data not yet on the remote")

// PrePush pushes the entire branches to opts.Destination when a push to
// opts.Remote carries them (Destination.Carries: a push to the
// destination remote, by name or by configured URL, or any push when the
// data goes to a repository of its own) (SPEC 5.4, 10.1). A destination
// that keeps the data local is said once on opts.Log, with how to change
// that. A branch is skipped when it does not exist locally or equals its
// remote-tracking ref at the destination. A branch the remote rejects for
// being behind (or busy) is fetched, merged (MergeCommits) and pushed
// again, until it lands or opts.Budget is spent; then one line names the
// checkpoints not yet on the remote (Unpushed). With opts.Refs, on a
// remote without a branch of the user's, nothing is pushed (ErrDeferred).
//
// Before pushing, the objects the remote lacks (the pushed tips, not what
// the remote-tracking refs reach) are scanned with opts.Redactor: on a
// finding nothing is pushed, one line names `entire doctor --secrets`, and
// the error wraps ErrSecretsFound. When purges are recorded (package
// secretscan), a rejected branch is reconciled instead of merged: history
// that reaches a purged commit is never merged back; its own new commits
// are replayed onto the clean tip, and a clean local branch replaces a
// remote that still holds purged history (pushed with a lease).
//
// Every failure of git, the network or the merge is a warning on opts.Log
// and PrePush returns nil, so the user's push proceeds. It returns an error
// only for invalid options (a branch that is not entire/<name>/v1), for
// secrets found, and ErrDeferred.
func PrePush(ctx context.Context, repo *gitrepo.Repo, opts Options) error {
	if !opts.PushSessions {
		return nil
	}
	for _, b := range opts.Branches {
		if !branchPattern.MatchString(b) {
			return fmt.Errorf("%w: %q", ErrBadBranch, b)
		}
	}
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	dest := opts.Destination
	if !dest.Pushes() {
		if dest.Local != "" && !dest.NoRemote && opts.Remote != "" && hasLocalBranches(repo) {
			fmt.Fprintf(log, "[entire] Session data not pushed: %s. To change that: %s\n", dest.Local, dest.Fix)
		}
		return nil
	}
	if dest.Note != "" {
		fmt.Fprintf(log, "[entire] %s\n", dest.Note)
	}
	if !dest.Carries(repo, opts.Remote) {
		return nil
	}
	cpName := dest.Name()
	warn := func(err error) {
		fmt.Fprintf(log, "[entire] could not push session logs to %s: %v\n", cpName, err)
	}
	r := &runner{repo: repo, timeout: timeoutOr(opts.Timeout), env: append(slices.Clone(opts.Env), dest.env...)}
	if opts.SyncLimit > 0 && !opts.Background {
		r.timeout = min(r.timeout, opts.SyncLimit)
	}
	// Tracking refs of another URL (set-url to a new repository) say
	// nothing of this one: ask it.
	trusted, err := r.refreshTracking(ctx, dest)
	if err != nil {
		return opts.handOver(err, log, warn)
	}
	start := time.Now()
	branchErr := r.prePushBranches(ctx, repo, dest, opts, trusted, start, log)
	if errors.Is(branchErr, ErrSecretsFound) || errors.Is(branchErr, ErrDeferred) {
		return branchErr
	}
	refErr := r.prePushRefs(ctx, dest, opts, start, log)
	switch {
	case errors.Is(refErr, ErrSecretsFound):
		return refErr
	case errors.Is(branchErr, ErrBackground) || errors.Is(refErr, ErrBackground):
		return ErrBackground
	}
	return nil
}

// prePushBranches is PrePush of the entire/<name>/v1 branches.
func (r *runner) prePushBranches(ctx context.Context, repo *gitrepo.Repo, dest Destination, opts Options, trusted bool, start time.Time, log io.Writer) error {
	cpName := dest.Name()
	warn := func(err error) {
		fmt.Fprintf(log, "[entire] could not push session logs to %s: %v\n", cpName, err)
	}
	branches := opts.Branches
	if branches == nil {
		var err error
		if branches, err = localBranches(repo); err != nil {
			warn(err)
			return nil
		}
	}
	var pending, explicit []target
	for _, b := range branches {
		local, err := repo.ReadRef(headRef(b))
		if err != nil {
			warn(err)
			continue
		}
		tracking, err := repo.ReadRef(dest.TrackingRef(b))
		if err != nil {
			warn(err)
			continue
		}
		if local.IsZero() || local == tracking {
			continue
		}
		t := target{branch: b, tip: local, tracking: tracking}
		if slices.Contains(opts.Explicit, b) {
			explicit = append(explicit, t)
		} else {
			pending = append(pending, t)
		}
	}
	if len(pending)+len(explicit) == 0 {
		return nil
	}
	known, err := knownTips(repo, dest)
	if err != nil {
		warn(err)
		return nil
	}
	// How much is new decides who pushes it: this hook, or a background
	// push (a large one in batches).
	var size int64
	if len(pending) > 0 && (opts.SyncLimit > 0 || opts.Background) {
		if size, err = newBytes(ctx, repo, tips(pending), known); err != nil {
			warn(err)
			return nil
		}
	}
	toBackground := !opts.Background && opts.SyncLimit > 0 && size > syncBytes
	if toBackground {
		// The background push scans what it sends; git sends the
		// branches the user named now.
		pending = nil
	}

	if opts.Redactor != nil {
		if n, err := scanOutgoing(ctx, repo, opts.Redactor, opts.RulesFingerprint, dest, append(pending, explicit...)); err != nil {
			warn(err)
		} else if n > 0 {
			fmt.Fprintf(log, "[entire] Not pushing session logs to %s: %d secret(s) in data it does not have yet; see `entire doctor --secrets`\n", cpName, n)
			return fmt.Errorf("%w: %d", ErrSecretsFound, n)
		}
	}
	if len(pending) == 0 && !toBackground {
		return nil
	}
	if opts.Refs != nil && dest.Remote != "" {
		// (A repository of its own holds nothing but checkpoint data:
		// its default branch is no one's concern.)
		has, err := remoteHasUserBranch(ctx, repo, dest.Remote, trusted, opts)
		if err != nil {
			return opts.handOver(err, log, warn)
		}
		if !has {
			// A forge makes the first branch pushed to an empty
			// repository its default: the user's goes first, and the
			// session logs after it (or with a later push, when this
			// one brings no branch).
			if len(UserBranches(opts.Refs)) == 0 {
				fmt.Fprintf(log, "[entire] Session logs wait until %s has a branch of yours\n", cpName)
				return nil
			}
			return ErrDeferred
		}
	}
	if toBackground {
		fmt.Fprintf(log, "[entire] Pushing session logs to %s in the background (%s)\n", cpName, humanBytes(size))
		return ErrBackground
	}
	fmt.Fprintf(log, "[entire] Pushing session logs to %s...\n", cpName)
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	deadline := opts.deadline(start)
	if opts.Background {
		for i, t := range pending {
			pending[i] = r.pushBatches(ctx, dest, t, size, cmp.Or(opts.BatchBytes, batchBytes), deadline)
		}
	}
	left, err := r.pushUntilLanded(ctx, dest, pending, deadline, now, log)
	outOfTime := errors.Is(err, errOutOfTime) || errors.Is(err, ErrTimeout) || time.Until(deadline) < minAttempt
	if len(left) > 0 && opts.SyncLimit > 0 && !opts.Background && outOfTime {
		// Out of the hook's time: the rest goes on in the background (a
		// push the remote refused for good is not tried again there).
		if err != nil {
			fmt.Fprintf(log, "[entire] Pushing the rest of the session logs in the background (%v)\n", err)
		}
		return ErrBackground
	}
	if err != nil {
		warn(err)
	}
	if len(left) > 0 && slices.Contains(left, checkpoint.MetadataBranch) {
		if ids, uerr := Unpushed(repo, dest); uerr == nil {
			if line := DescribeUnpushed(ids, cpName); line != "" {
				fmt.Fprintf(log, "[entire] %s\n", line)
			}
		}
	}
	return nil
}

// deadline is when a push that started at start must be done: Budget
// after it (zero: BackgroundBudget for the background push, else
// DefaultBudget), and no later than SyncLimit in the hook.
func (opts Options) deadline(start time.Time) time.Time {
	budget := opts.Budget
	switch {
	case budget > 0:
	case opts.Background:
		budget = BackgroundBudget
	default:
		budget = DefaultBudget
	}
	if opts.SyncLimit > 0 && !opts.Background {
		budget = min(budget, opts.SyncLimit)
	}
	return start.Add(budget)
}

// tips are the commits of the targets.
func tips(ts []target) []plumbing.Hash {
	out := make([]plumbing.Hash, len(ts))
	for i, t := range ts {
		out[i] = t.tip
	}
	return out
}

// humanBytes writes a size shortly ("3.2 MB").
func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// handOver is what PrePush does when asking the remote failed before it
// pushed. In the hook, a call that ran out of the hook's time (SyncLimit:
// a loaded machine, a slow remote) leaves the push to the background push
// that waits for the user's branches to land (ErrDeferred), with a budget
// of its own, where giving up would leave the session logs for the user's
// next push. Any other failure, or a push that brings no branch of the
// user's, is a warning.
func (opts Options) handOver(err error, log io.Writer, warn func(error)) error {
	if errors.Is(err, ErrTimeout) && opts.SyncLimit > 0 && !opts.Background && len(UserBranches(opts.Refs)) > 0 {
		fmt.Fprintf(log, "[entire] Pushing the session logs once this push has landed (%v)\n", err)
		return ErrDeferred
	}
	warn(err)
	return nil
}

// ErrDeferred is returned by PrePush when the remote has no branch of the
// user's yet and the push brings one: the entire branches must not arrive
// first (a forge would make one of them the default branch), so nothing was
// pushed; push them once the user's push has landed (WaitLanded, then
// PrePush without Options.Refs).
var ErrDeferred = errors.New("push: session logs wait until the remote has a branch of yours")

// FetchBranch fetches branch (entire/<name>/v1) from dest into its
// remote-tracking ref (dest.TrackingRef), bounded by timeout (zero:
// DefaultTimeout) and ctx, with the same no-hang guarantees as PrePush. A
// destination without the branch is an error, and so is one that keeps
// the data local (ErrLocal).
func FetchBranch(ctx context.Context, repo *gitrepo.Repo, dest Destination, branch string, timeout time.Duration) error {
	if !branchPattern.MatchString(branch) {
		return fmt.Errorf("%w: %q", ErrBadBranch, branch)
	}
	if !dest.Fetches() {
		return fmt.Errorf("%w: %s", ErrLocal, dest.Local)
	}
	r := &runner{repo: repo, timeout: timeoutOr(timeout), env: dest.env}
	return r.fetch(ctx, dest, []string{branch})
}

// ErrLocal is returned (wrapped) by FetchBranch when the settings keep
// checkpoint data on this machine.
var ErrLocal = errors.New("push: checkpoint data stays local")

// hasLocalBranches reports whether there is checkpoint data to keep local
// (a local entire/<name>/v1 branch): only then is a push told so.
func hasLocalBranches(repo *gitrepo.Repo) bool {
	b, err := localBranches(repo)
	return err == nil && len(b) > 0
}

// target is a branch to push: the commit to push and the remote-tracking
// ref's value before the push.
type target struct {
	branch   string
	tip      plumbing.Hash
	tracking plumbing.Hash
	// lease replaces the remote branch, if it is still at tracking
	// (--force-with-lease): it held history a purge removed.
	lease bool
}

// isDescendant reports whether tip has cur in its history (a merge or a
// fast-forward keeps cur; a replay onto the other side drops it).
func isDescendant(ctx context.Context, repo *gitrepo.Repo, tip, cur plumbing.Hash) bool {
	ok, err := isAncestor(ctx, repo, cur, tip)
	return err == nil && ok
}

// withBranch returns branches with b added when missing.
func withBranch(branches []string, b string) []string {
	if slices.Contains(branches, b) {
		return branches
	}
	return append(slices.Clone(branches), b)
}

// cleanSetFile (in the git common directory) holds the large blobs pushes
// scanned clean (secretscan.CleanSet).
const cleanSetFile = "entire-scanned-clean"

// scanOutgoing scans what pushing targets to dest sends: their commits'
// objects that no remote-tracking ref of dest's entire branches reaches.
// It returns the number of findings.
func scanOutgoing(ctx context.Context, repo *gitrepo.Repo, r *redact.Redactor, fingerprint string, dest Destination, targets []target) (int, error) {
	var include, exclude []plumbing.Hash
	for _, t := range targets {
		include = append(include, t.tip)
	}
	known, err := repo.ListRefs("refs/remotes/" + dest.Track() + "/entire/")
	if err != nil {
		return 0, err
	}
	for _, h := range known {
		exclude = append(exclude, h)
	}
	var clean *secretscan.CleanSet
	if fingerprint != "" {
		clean = secretscan.LoadCleanSet(filepath.Join(repo.CommonDir, cleanSetFile), fingerprint)
	}
	found, err := secretscan.ScanRangeCached(ctx, repo, r, include, exclude, 0, clean)
	if err != nil {
		return 0, fmt.Errorf("scan the data to push: %w", err)
	}
	if err := clean.Save(); err != nil {
		return len(found), fmt.Errorf("remember the scanned data: %w", err)
	}
	return len(found), nil
}

// push pushes the targets' commits to remote in one call and returns the
// branches the remote rejected for being behind or busy (retryable: the
// ones worth a merge and another push).
// err reports every other failure: the call itself, or branches rejected
// for other reasons. The remote-tracking ref of a pushed branch is set to
// what was pushed, also when the remote's fetch refspec does not cover it
// (a single-branch clone), so that the next push can skip it.
func (r *runner) push(ctx context.Context, dest Destination, targets []target) (nonFF []string, err error) {
	args := append(packConfig(), "push", "--porcelain", "--no-verify")
	for _, t := range targets {
		if t.lease {
			args = append(args, "--force-with-lease="+string(headRef(t.branch))+":"+t.tracking.String())
		}
	}
	// "--" ends the options: a destination is never read as one.
	args = append(args, "--", dest.arg())
	for _, t := range targets {
		args = append(args, t.tip.String()+":"+string(headRef(t.branch)))
	}
	out, runErr := r.run(ctx, args...)
	results := parsePorcelain(out)
	var errs []error
	missing := false
	for _, t := range targets {
		res, ok := results[string(headRef(t.branch))]
		switch {
		case !ok:
			missing = true // no status line: the call failed as a whole
		case res.flag != '!':
			r.setTracking(dest, t)
		case retryable(res.summary):
			nonFF = append(nonFF, t.branch)
		default:
			errs = append(errs, fmt.Errorf("%s rejected: %s", t.branch, res.summary))
		}
	}
	// A failed exit is explained by the rejections when every branch has
	// a status line; otherwise it is the failure itself.
	if runErr != nil && (missing || (len(nonFF) == 0 && len(errs) == 0)) {
		errs = append([]error{runErr}, errs...)
	}
	return nonFF, errors.Join(errs...)
}

// retryable reports whether a ref's rejection (its `git push --porcelain`
// summary) is one that joining the remote's branch and pushing again
// fixes: the remote moved (non-fast-forward), or another push held its ref
// at that moment (receive-pack's "failed to update ref", "cannot lock
// ref").
func retryable(summary string) bool {
	for _, s := range []string{"non-fast-forward", "fetch first", "failed to update ref", "cannot lock ref", "failed to lock", "incorrect old value"} {
		if strings.Contains(summary, s) {
			return true
		}
	}
	return false
}

// setTracking moves refs/remotes/<remote>/<branch> to the pushed commit
// unless git already did. Losing a race to a concurrent fetch is fine: the
// ref then holds the newer value.
func (r *runner) setTracking(dest Destination, t target) {
	name := dest.TrackingRef(t.branch)
	if cur, err := r.repo.ReadRef(name); err != nil || cur == t.tip || cur != t.tracking {
		return
	}
	_ = r.repo.UpdateRef(name, t.tip, t.tracking)
}

// fetch fetches branches from dest into their remote-tracking refs, in
// one bounded call.
func (r *runner) fetch(ctx context.Context, dest Destination, branches []string) error {
	args := append(packConfig(), "-c", "gc.auto=0", "-c", "maintenance.auto=false", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--", dest.arg())
	for _, b := range branches {
		args = append(args, "+"+string(headRef(b))+":"+string(dest.TrackingRef(b)))
	}
	if _, err := r.run(ctx, args...); err != nil {
		return fmt.Errorf("fetch %s from %s: %w", strings.Join(branches, ", "), dest.Name(), err)
	}
	return nil
}

// pushResult is one ref's line of `git push --porcelain`.
type pushResult struct {
	flag    byte
	summary string
}

// parsePorcelain maps the destination refs of `git push --porcelain`
// output ("<flag>\t<src>:<dst>\t<summary>") to their results.
func parsePorcelain(out []byte) map[string]pushResult {
	res := map[string]pushResult{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 3 || line[1] != '\t' {
			continue
		}
		fields := strings.SplitN(line[2:], "\t", 2)
		_, dst, ok := strings.Cut(fields[0], ":")
		if !ok {
			continue
		}
		var summary string
		if len(fields) == 2 {
			summary = fields[1]
		}
		res[dst] = pushResult{flag: line[0], summary: summary}
	}
	return res
}

// isCheckpointRemote reports whether pushed (a remote name or URL) is the
// checkpoint remote cpRemote: the same name, or a URL equal to one of
// cpRemote's configured url or pushurl values.
func isCheckpointRemote(repo *gitrepo.Repo, pushed, cpRemote string) bool {
	if pushed == "" {
		return false
	}
	if pushed == cpRemote {
		return true
	}
	cfg, err := repo.Git.Config()
	if err != nil {
		return false
	}
	return namesRemote(cfg.Raw.Section("remote").Subsection(cpRemote), pushed)
}

// namesRemote reports whether pushed (a remote name or URL, as git gives
// it to the pre-push hook) names the configured remote sub: its name, or a
// URL equal to one of its url or pushurl values.
func namesRemote(sub *format.Subsection, pushed string) bool {
	if pushed == "" {
		return false
	}
	if pushed == sub.Name {
		return true
	}
	for _, key := range []string{"url", "pushurl"} {
		for _, u := range sub.Options.GetAll(key) {
			if u != "" && sameURL(u, pushed) {
				return true
			}
		}
	}
	return false
}

// sameURL compares two remote URLs, ignoring a trailing slash or ".git".
func sameURL(a, b string) bool {
	norm := func(s string) string {
		s = strings.TrimSpace(s)
		s = strings.TrimSuffix(s, "/")
		return strings.TrimSuffix(s, ".git")
	}
	return norm(a) == norm(b)
}

// localBranches lists the local entire/<name>/v1 branches, sorted.
func localBranches(repo *gitrepo.Repo) ([]string, error) {
	refs, err := repo.ListRefs("refs/heads/entire/")
	if err != nil {
		return nil, err
	}
	var out []string
	for name := range refs {
		if b := strings.TrimPrefix(string(name), "refs/heads/"); branchPattern.MatchString(b) {
			out = append(out, b)
		}
	}
	sort.Strings(out)
	return out, nil
}

func headRef(branch string) plumbing.ReferenceName {
	return plumbing.ReferenceName("refs/heads/" + branch)
}

func trackingRef(remote, branch string) plumbing.ReferenceName {
	return plumbing.ReferenceName("refs/remotes/" + remote + "/" + branch)
}

func timeoutOr(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultTimeout
	}
	return d
}
