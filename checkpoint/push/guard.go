package push

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/secretscan"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/go-git/go-git/v5/plumbing"
)

// ErrRefused is returned by Guard when a push would carry entire's branches
// where they must not go.
var ErrRefused = errors.New("push: entire branches refused")

// zeroSHA is how git's pre-push input names a ref that is deleted.
const zeroSHA = "0000000000000000000000000000000000000000"

// localPrefix is where refs that must never leave the machine live
// (refs/entire/undo/ of entire versions that kept undo points as refs).
const localPrefix = "refs/entire/"

// pushedRef is one line of git's pre-push input.
type pushedRef struct {
	local, localSHA, remote, remoteSHA string
}

// name is how a refusal names the ref: the remote ref, unless the local
// one is entire's.
func (p pushedRef) name() string {
	if b, ok := strings.CutPrefix(p.local, "refs/heads/"); ok && strings.HasPrefix(b, "entire/") {
		return b
	}
	if b, ok := strings.CutPrefix(p.remote, "refs/heads/"); ok && strings.HasPrefix(b, "entire/") {
		return b
	}
	if strings.HasPrefix(p.local, localPrefix) {
		return p.local
	}
	return p.remote
}

// Guard checks the refs a push is about to send (git's pre-push input:
// "<local ref> <local sha> <remote ref> <remote sha>" lines) and refuses,
// with an error wrapping ErrRefused, a push whose refs would carry:
//
//   - a shadow branch (entire/<sha7>-<hash6>: temporary checkpoints are
//     never pushed; any refs/heads/entire/* that is not an entire/<name>/v1
//     branch counts as one), by name on either side, or under another
//     name (a ref whose new commits include a shadow branch's), to any
//     remote;
//   - anything under refs/entire/ (local data of older versions: undo
//     points holding raw transcripts), to any remote, but a checkpoint's
//     own ref (SPEC 10.3) pushed as itself to the checkpoint remote;
//   - history a recorded purge removed (the roots in purges.json on the
//     metadata branch or its remote-tracking refs): any ref whose new
//     commits reach a purged commit, such as a stale remote-tracking ref
//     carried by `git push --mirror`; and a forced update of an
//     entire/<name>/v1 branch that would drop history the remote has and
//     this clone may not (a clone that has not heard of a purge would put
//     the purged history back), unless the history it replaces is the
//     purged one (the force push `entire doctor --secrets --purge`
//     prints);
//   - entire's branches, or a ref whose new commits include theirs, to a
//     remote other than the checkpoint remote, or anywhere when
//     push_sessions is false.
//
// Everything else goes: `git push origin main entire/checkpoints/v1`, and
// `git push --all` and `--mirror` to the checkpoint remote (remote-tracking
// refs of entire's branches included), unless they carry one of the above.
// This keeps `git push --all fork` and a tag on a merge of
// entire/checkpoints/v1 from publishing session data. Deleting a ref on a
// remote is allowed. The error names each refused ref, why when it is the
// history, and ends with the git command that pushes the rest as the user
// asked (forced where the refused push was).
//
// The history checks rely on entire's branches being orphan histories
// (SPEC 3.6, 3.7) and cost two `git rev-list --count` runs over the pushed
// range for each kind of history looked for (entire's, then the purged
// one when purges are recorded): the commits of the pushed refs minus what
// the remote is known to have (the remote SHAs of the input and
// refs/remotes/<remote>/*), counted once as is and once also minus the
// tips looked for. git walks entire's histories only as far back as the
// pushed range's dates reach, so the cost follows what is pushed, not the
// size of the repository. A git failure in a check is returned as an error
// that does not wrap ErrRefused (the push goes on).
func Guard(ctx context.Context, repo *gitrepo.Repo, refs io.Reader, opts Options) error {
	dest := opts.Destination
	toCheckpointRemote := opts.PushSessions && dest.Is(repo, opts.Remote)
	lines, err := readPushed(refs)
	if err != nil {
		return err
	}
	var refused []refusal
	var carried []pushedRef
	for _, p := range lines {
		if p.localSHA == zeroSHA {
			if _, ok := checkpoint.IDOfRef(plumbing.ReferenceName(p.remote)); ok || p.remote == string(secretscan.PurgesRef) {
				// The team's checkpoints: a clone holds only those it
				// fetched, and `git push --mirror` would delete the rest.
				refused = append(refused, refusal{ref: p, why: "deleting a checkpoint on the remote; push with --no-verify if that is what you mean"})
			}
			continue
		}
		if byName(p, toCheckpointRemote) == nameRefused {
			refused = append(refused, refusal{ref: p})
		} else {
			carried = append(carried, p)
		}
	}
	hist, err := byHistory(ctx, repo, carried, opts.Remote, toCheckpointRemote)
	refused = append(refused, hist...)
	if len(refused) == 0 {
		return err
	}
	var names []string
	out := map[pushedRef]bool{}
	for _, r := range refused {
		out[r.ref] = true
		if r.why == "" {
			names = append(names, r.ref.name())
		} else {
			names = append(names, r.ref.name()+" ("+r.why+")")
		}
	}
	sort.Strings(names)
	why := "shadow branches and refs/entire/ are never pushed"
	switch {
	case !opts.PushSessions:
		why = "strategy_options.push_sessions is false; " + why
	case !dest.Pushes():
		why = "session data stays local: " + dest.Local + "; " + why
	case !toCheckpointRemote:
		why = fmt.Sprintf("only the checkpoint remote %q receives session data; ", dest.Name()) + why
	}
	var rest []pushedRef
	for _, p := range lines {
		if !out[p] {
			rest = append(rest, p)
		}
	}
	next := " Nothing else is left to push."
	if len(rest) > 0 {
		next = " To push the rest:\n  " + restCommand(ctx, repo, opts.Remote, rest)
	}
	return fmt.Errorf("%w: not pushing %s to %s (%s).%s",
		ErrRefused, strings.Join(names, ", "), opts.Remote, why, next)
}

// refusal is a pushed ref Guard refuses, with why when its name alone does
// not say.
type refusal struct {
	ref pushedRef
	why string
}

// readPushed parses git's pre-push input, deletions included.
func readPushed(refs io.Reader) ([]pushedRef, error) {
	var out []pushedRef
	sc := bufio.NewScanner(refs)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			continue
		}
		out = append(out, pushedRef{local: f[0], localSHA: f[1], remote: f[2], remoteSHA: f[3]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read pushed refs: %w", err)
	}
	return out, nil
}

// byHistory judges the pushed refs that their names allow (none deleted)
// by the commits they carry: see Guard. It returns what it refuses, and
// the failures of git that left a check undone.
func byHistory(ctx context.Context, repo *gitrepo.Repo, carried []pushedRef, remote string, toCheckpointRemote bool) ([]refusal, error) {
	if len(carried) == 0 {
		return nil, nil
	}
	var out []refusal
	refused := map[pushedRef]bool{}
	add := func(ps []pushedRef, why string) {
		for _, p := range ps {
			if !refused[p] {
				refused[p] = true
				out = append(out, refusal{ref: p, why: why})
			}
		}
	}
	var others, own []pushedRef
	for _, p := range carried {
		if isEntireBranch(p) {
			own = append(own, p)
		} else {
			others = append(others, p)
		}
	}
	var errs []error
	// Entire's histories under other names: shadow branches never leave;
	// the entire/*/v1 branches' go to the checkpoint remote only.
	tips, err := entireTips(repo, !toCheckpointRemote)
	if err != nil {
		errs = append(errs, err)
	}
	known, err := remoteKnown(repo, carried, remote, true)
	if err != nil {
		return nil, errors.Join(append(errs, err)...)
	}
	if len(tips) > 0 && len(others) > 0 {
		hit, err := reachingAny(ctx, repo, others, known, tips)
		if err != nil {
			errs = append(errs, err)
		}
		why := "its history holds commits of entire's branches"
		if toCheckpointRemote {
			why = "its history holds commits of a shadow branch"
		}
		add(hit, why)
	}
	if !toCheckpointRemote && len(others) > 0 {
		// Checkpoint refs (SPEC 10.3) are orphan histories of their own:
		// one under another name brings its root along.
		var todo []pushedRef
		for _, p := range others {
			if !refused[p] && p.localSHA != p.remoteSHA && repo.HasObject(plumbing.NewHash(p.localSHA)) {
				todo = append(todo, p)
			}
		}
		hit, err := whichRefs(todo, func(ps []pushedRef) (bool, error) {
			return carriesCheckpointRoot(ctx, repo, ps, known)
		})
		if err != nil {
			errs = append(errs, err)
		}
		add(hit, "its history holds a checkpoint's commits")
	}
	// History a purge removed, under any name.
	purged, err := recordedPurges(repo)
	if err != nil {
		errs = append(errs, err)
	}
	var roots []plumbing.Hash
	if purged != nil {
		roots = purged.roots
	}
	if len(roots) > 0 {
		var todo []pushedRef
		for _, p := range carried {
			if !refused[p] {
				todo = append(todo, p)
			}
		}
		// What the remote has under the pushed names does not count: a
		// ref moving from purged history to purged history is refused.
		clean, err := remoteKnown(repo, carried, remote, false)
		if err != nil {
			return nil, errors.Join(append(errs, err)...)
		}
		hit, err := carryingPurged(ctx, repo, todo, clean, purged.rewritten)
		if err != nil {
			errs = append(errs, err)
		}
		add(hit, "its history holds commits a purge removed")
	}
	// A forced update of entire's branch replaces the remote's history:
	// only history a purge removed may be replaced that way.
	for _, p := range own {
		if refused[p] || p.remoteSHA == zeroSHA {
			continue
		}
		ok, err := mayReplace(ctx, repo, p, remote, purged)
		if err != nil {
			errs = append(errs, fmt.Errorf("check the pushed history: %w", err))
			continue
		}
		if ok {
			continue
		}
		add([]pushedRef{p}, "forced: it would drop session data the remote has; pushed without it, the pre-push hook merges both")
		// This clone's copies of the branch are as stale: the remote's
		// history may be a purge this clone has not heard of.
		for _, c := range carried {
			if slices.Contains(trackedBranches(c.local), strings.TrimPrefix(p.remote, "refs/heads/")) {
				add([]pushedRef{c}, "the remote's branch has moved past it")
			}
		}
	}
	return out, errors.Join(errs...)
}

// mayReplace reports whether p, an update of an entire/<name>/v1 branch
// the remote has, may go: a fast-forward; or an update replacing history a
// purge removed: the remote's tip reaches a purged commit, or, when this
// clone does not have the remote's tip, the branch is the result of this
// clone's purge on its first push since (it descends from the purge's new
// tip, and the purge dropped the remote-tracking ref: remote, the pushed
// remote's name or URL, has none).
func mayReplace(ctx context.Context, repo *gitrepo.Repo, p pushedRef, remote string, purged *purgedHistory) (bool, error) {
	remoteTip, localTip := plumbing.NewHash(p.remoteSHA), plumbing.NewHash(p.localSHA)
	if repo.HasObject(remoteTip) {
		if ff, err := isAncestor(ctx, repo, remoteTip, localTip); err != nil || ff {
			return ff, err
		}
	}
	if purged == nil {
		return false, nil
	}
	if repo.HasObject(remoteTip) {
		return reachesPurged(ctx, repo, remoteTip, purged.roots)
	}
	branch := strings.TrimPrefix(p.remote, "refs/heads/")
	if tracked, err := trackedOn(repo, remote, branch); err != nil || tracked {
		return false, err
	}
	for _, h := range purged.newTips[branch] {
		if !repo.HasObject(h) {
			continue
		}
		if ok, err := isAncestor(ctx, repo, h, localTip); err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// isEntireBranch reports whether p pushes an entire/<name>/v1 branch, a
// checkpoint ref (SPEC 10.3) or the record of their purges as itself.
func isEntireBranch(p pushedRef) bool {
	if p.local != p.remote {
		return false
	}
	if _, ok := checkpoint.IDOfRef(plumbing.ReferenceName(p.remote)); ok || p.remote == string(secretscan.PurgesRef) {
		return true
	}
	b, ok := strings.CutPrefix(p.remote, "refs/heads/")
	return ok && branchPattern.MatchString(b)
}

// purgedHistory is what the recorded purges removed: the commits they
// rewrote, and the earliest of them that this clone has.
type purgedHistory struct {
	rewritten map[string]bool
	roots     []plumbing.Hash
	// newTips are the rewritten tips of each purged branch.
	newTips map[string][]plumbing.Hash
}

// recordedPurges returns the purges recorded on the metadata branch, on
// its remote-tracking refs and on refs/entire/purges (purged checkpoint
// refs), merged (nil when none is).
func recordedPurges(repo *gitrepo.Repo) (*purgedHistory, error) {
	tips := []plumbing.Hash{}
	for _, ref := range []plumbing.ReferenceName{headRef(checkpoint.MetadataBranch), secretscan.PurgesRef} {
		if h, err := repo.ReadRef(ref); err != nil {
			return nil, err
		} else if !h.IsZero() {
			tips = append(tips, h)
		}
	}
	remotes, err := repo.ListRefs("refs/remotes/")
	if err != nil {
		return nil, err
	}
	for name, h := range remotes {
		if strings.HasSuffix(string(name), "/"+checkpoint.MetadataBranch) {
			tips = append(tips, h)
		}
	}
	all := &secretscan.Purges{}
	for _, h := range tips {
		p, err := secretscan.ReadPurges(repo, h)
		if err != nil {
			return nil, err
		}
		all.Merge(p)
	}
	if len(all.Purges) == 0 {
		return nil, nil
	}
	out := &purgedHistory{rewritten: all.RewrittenSet(), newTips: map[string][]plumbing.Hash{}}
	for _, r := range all.Purges {
		if h := plumbing.NewHash(r.NewTip); !h.IsZero() {
			out.newTips[r.Branch] = append(out.newTips[r.Branch], h)
		}
	}
	for _, r := range all.Roots() {
		if repo.HasObject(r) {
			out.roots = append(out.roots, r)
		}
	}
	return out, nil
}

// carryingPurged returns the pushed refs whose new commits (not reachable
// from known) include a commit in rewritten.
func carryingPurged(ctx context.Context, repo *gitrepo.Repo, pushed []pushedRef, known []string, rewritten map[string]bool) ([]pushedRef, error) {
	var todo []pushedRef
	for _, p := range pushed {
		if repo.HasObject(plumbing.NewHash(p.localSHA)) {
			todo = append(todo, p)
		}
	}
	return whichRefs(todo, func(ps []pushedRef) (bool, error) {
		out, err := repo.RunGitInput(ctx, []byte(newCommits(ps, known)), "rev-list", "--stdin")
		if err != nil {
			return false, fmt.Errorf("check the pushed history: %w", err)
		}
		for _, c := range strings.Fields(string(out)) {
			if rewritten[c] {
				return true, nil
			}
		}
		return false, nil
	})
}

// whichRefs returns the refs of todo that hit finds: one call over all of
// them, and one per ref, to name them, only when that call finds something
// (the refusing path).
func whichRefs(todo []pushedRef, hit func([]pushedRef) (bool, error)) ([]pushedRef, error) {
	if len(todo) == 0 {
		return nil, nil
	}
	if found, err := hit(todo); err != nil || !found {
		return nil, err
	}
	if len(todo) == 1 {
		return todo, nil
	}
	var out []pushedRef
	for _, p := range todo {
		found, err := hit([]pushedRef{p})
		if err != nil {
			return nil, err
		}
		if found {
			out = append(out, p)
		}
	}
	return out, nil
}

// newCommits is the `git rev-list --stdin` input that lists the commits of
// pushed not reachable from known.
func newCommits(pushed []pushedRef, known []string) string {
	var in strings.Builder
	for _, p := range pushed {
		in.WriteString(p.localSHA + "\n")
	}
	for _, k := range known {
		in.WriteString("^" + k + "\n")
	}
	return in.String()
}

// restCommand returns the git command that pushes rest (what a refused
// push carried but the refused refs) to remote as the push would have:
// the same source and destination, a deletion as ":<ref>", and forced
// ("+") where the remote's value is not in the pushed history (git lists
// such an update to the hook only when the push was forced).
func restCommand(ctx context.Context, repo *gitrepo.Repo, remote string, rest []pushedRef) string {
	args := []string{"git", "push", iostreams.ShellQuote(remote)}
	for _, p := range rest {
		if p.localSHA == zeroSHA {
			args = append(args, iostreams.ShellQuote(":"+p.remote))
			continue
		}
		src := p.local
		if !strings.HasPrefix(src, "refs/") {
			src = p.localSHA
		}
		spec := src + ":" + p.remote
		if forced(ctx, repo, p) {
			spec = "+" + spec
		}
		args = append(args, iostreams.ShellQuote(spec))
	}
	return strings.Join(args, " ")
}

// forced reports whether pushing p needs --force: the remote has a value
// that the pushed commit does not descend from (an existing tag always).
func forced(ctx context.Context, repo *gitrepo.Repo, p pushedRef) bool {
	if p.remoteSHA == zeroSHA {
		return false
	}
	if strings.HasPrefix(p.remote, "refs/tags/") {
		return true
	}
	remoteTip := plumbing.NewHash(p.remoteSHA)
	if !repo.HasObject(remoteTip) {
		return true
	}
	ff, err := isAncestor(ctx, repo, remoteTip, plumbing.NewHash(p.localSHA))
	return err != nil || !ff
}

// nameVerdict is what a pushed ref's names alone decide.
type nameVerdict int

const (
	// nameOther: the names are not entire's; the history check decides.
	nameOther nameVerdict = iota
	// nameRefused: the ref must not be pushed.
	nameRefused
	// nameAllowed: an entire/<name>/v1 branch going to the checkpoint
	// remote as itself.
	nameAllowed
)

// byName applies the rules on ref names: a checkpoint's ref
// (refs/entire/checkpoints/<last two>/<id>) and the record of their purges
// (refs/entire/purges) pushed as themselves go to the checkpoint remote
// only; anything else under refs/entire/ is
// refused, and so is refs/heads/entire/* on either side unless it is an
// entire/<name>/v1 branch going to the checkpoint remote, and a
// remote-tracking ref of a shadow branch.
func byName(p pushedRef, toCheckpointRemote bool) nameVerdict {
	if id, ok := checkpoint.IDOfRef(plumbing.ReferenceName(p.local)); ok && p.remote == p.local {
		// A checkpoint stored as its own ref (SPEC 10.3), as itself.
		if _, ok := checkpoint.IDOfRef(plumbing.ReferenceName(p.remote)); ok && id.Valid() && toCheckpointRemote {
			return nameAllowed
		}
		return nameRefused
	}
	if p.local == string(secretscan.PurgesRef) && p.remote == p.local {
		// The record of purged checkpoint refs, which travels with them.
		if toCheckpointRemote {
			return nameAllowed
		}
		return nameRefused
	}
	for _, ref := range []string{p.local, p.remote} {
		if strings.HasPrefix(ref, localPrefix) {
			return nameRefused
		}
		for _, b := range trackedBranches(ref) {
			if _, _, shadow := checkpoint.ParseShadowBranch(b); shadow {
				return nameRefused
			}
		}
		b, ok := strings.CutPrefix(ref, "refs/heads/")
		if !ok || !strings.HasPrefix(b, "entire/") {
			continue
		}
		if !branchPattern.MatchString(b) || !toCheckpointRemote {
			return nameRefused
		}
		return nameAllowed
	}
	return nameOther
}

// reachingAny returns the pushed refs whose new commits (those the remote
// is not known to have: not reachable from known) include commits
// reachable from tips.
func reachingAny(ctx context.Context, repo *gitrepo.Repo, pushed []pushedRef, known, tips []string) ([]pushedRef, error) {
	var todo []pushedRef
	for _, p := range pushed {
		if p.localSHA != p.remoteSHA && repo.HasObject(plumbing.NewHash(p.localSHA)) {
			todo = append(todo, p)
		}
	}
	return whichRefs(todo, func(ps []pushedRef) (bool, error) {
		return reaches(ctx, repo, ps, known, tips)
	})
}

// reaches reports whether the commits of pushed, minus known, include
// commits reachable from tips: whether subtracting tips too makes the count
// smaller.
func reaches(ctx context.Context, repo *gitrepo.Repo, pushed []pushedRef, known, tips []string) (bool, error) {
	in := newCommits(pushed, known)
	all, err := revCount(ctx, repo, in)
	if err != nil || all == "0" {
		return false, err
	}
	var not strings.Builder
	for _, t := range tips {
		not.WriteString("^" + t + "\n")
	}
	outside, err := revCount(ctx, repo, in+not.String())
	if err != nil {
		return false, err
	}
	return outside != all, nil
}

// carriesCheckpointRoot reports whether the new commits of pushed (not
// reachable from known) include the first commit of a checkpoint ref: a
// root commit whose subject is "Checkpoint: <id>". Only root commits are
// read, so the check costs one rev-list whatever the number of refs.
func carriesCheckpointRoot(ctx context.Context, repo *gitrepo.Repo, pushed []pushedRef, known []string) (bool, error) {
	out, err := repo.RunGitInput(ctx, []byte(newCommits(pushed, known)), "rev-list", "--max-parents=0", "--format=%s", "--stdin")
	if err != nil {
		return false, fmt.Errorf("check the pushed history: %w", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if id, ok := strings.CutPrefix(line, "Checkpoint: "); ok && checkpoint.ID(strings.TrimSpace(id)).Valid() {
			return true, nil
		}
	}
	return false, nil
}

// revCount runs `git rev-list --count --stdin` over revs (one a line).
func revCount(ctx context.Context, repo *gitrepo.Repo, revs string) (string, error) {
	out, err := repo.RunGitInput(ctx, []byte(revs), "rev-list", "--count", "--stdin")
	if err != nil {
		return "", fmt.Errorf("check the pushed history: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// entireTips returns the commits whose histories a push must not carry
// under names other than entire's: the shadow branch tips and, with meta,
// the entire/<name>/v1 branch tips and their remote-tracking refs. Other
// branches under entire/ are not entire's orphan histories (a user's
// "entire/feature" holds the user's commits) and are left out: the name
// rule alone covers them.
func entireTips(repo *gitrepo.Repo, meta bool) ([]string, error) {
	seen := map[plumbing.Hash]bool{}
	var out []string
	add := func(h plumbing.Hash) {
		if !h.IsZero() && !seen[h] {
			seen[h] = true
			out = append(out, h.String())
		}
	}
	local, err := repo.ListRefs("refs/heads/entire/")
	if err != nil {
		return nil, err
	}
	for name, h := range local {
		b := strings.TrimPrefix(string(name), "refs/heads/")
		if _, _, shadow := checkpoint.ParseShadowBranch(b); shadow || (meta && branchPattern.MatchString(b)) {
			add(h)
		}
	}
	if !meta {
		return out, nil
	}
	remotes, err := repo.ListRefs("refs/remotes/")
	if err != nil {
		return nil, err
	}
	for name, h := range remotes {
		if slices.ContainsFunc(trackedBranches(string(name)), branchPattern.MatchString) {
			add(h)
		}
	}
	return out, nil
}

// trackedBranches returns the branches a remote-tracking ref
// (refs/remotes/<remote>/<branch>) may stand for, nil for other refs. A
// remote's name may hold slashes ("entire", "team/entire"), so every split
// after a slash counts: the checks that use it refuse what any reading
// refuses.
func trackedBranches(ref string) []string {
	rest, ok := strings.CutPrefix(ref, "refs/remotes/")
	if !ok {
		return nil
	}
	var out []string
	for i := 0; i < len(rest); i++ {
		if rest[i] == '/' {
			out = append(out, rest[i+1:])
		}
	}
	return out
}

// trackedOn reports whether this clone has a remote-tracking ref of branch
// for the remote a push goes to: remote is its name or URL as git gives it
// to the pre-push hook, and a URL stands for every configured remote with
// that URL. Other remotes' tracking refs say nothing about this one.
func trackedOn(repo *gitrepo.Repo, remote, branch string) (bool, error) {
	cfg, err := repo.Git.Config()
	if err != nil {
		return false, fmt.Errorf("read git config: %w", err)
	}
	for _, sub := range cfg.Raw.Section("remote").Subsections {
		if !namesRemote(sub, remote) {
			continue
		}
		h, err := repo.ReadRef(trackingRef(sub.Name, branch))
		if err != nil {
			return false, err
		}
		if !h.IsZero() {
			return true, nil
		}
	}
	return false, nil
}

// remoteKnown returns the commits the remote is known to have under names
// other than entire's: with inputs, the remote SHAs of the pushed refs that
// exist here; and the remote-tracking refs of a named remote but its
// entire/ ones (that the remote has entire's history as entire's branches
// does not make a copy under another name harmless) and those being pushed
// themselves (`git push --mirror` sends them as they are here, not as the
// remote has them).
func remoteKnown(repo *gitrepo.Repo, pushed []pushedRef, remote string, inputs bool) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	pushing := map[string]bool{}
	for _, p := range pushed {
		pushing[p.local] = true
		if inputs && p.remoteSHA != zeroSHA && !seen[p.remoteSHA] && repo.HasObject(plumbing.NewHash(p.remoteSHA)) {
			seen[p.remoteSHA] = true
			out = append(out, p.remoteSHA)
		}
	}
	if remote == "" {
		return out, nil
	}
	// A URL or path matches no remote-tracking ref.
	refs, err := repo.ListRefs("refs/remotes/" + remote + "/")
	if err != nil {
		return nil, err
	}
	for name, h := range refs {
		if strings.HasPrefix(string(name), "refs/remotes/"+remote+"/entire/") || pushing[string(name)] {
			continue
		}
		if s := h.String(); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out, nil
}
