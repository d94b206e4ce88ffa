package push

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/gitrepo"
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
// with an error wrapping ErrRefused that names them, when they would carry
// entire's data where it must not go:
//
//   - any ref under refs/entire/ (local data of older versions: undo
//     points holding raw transcripts), to any remote;
//   - any shadow branch (entire/<sha7>-<hash6>: temporary checkpoints are
//     never pushed), to any remote;
//   - the entire/*/v1 branches, unless the remote is the checkpoint remote
//     and push_sessions allows it;
//   - any other ref (a tag, another branch, a remote-tracking ref, a raw
//     SHA) whose history reaches commits of entire's orphan histories (the
//     shadow branches and the entire/*/v1 branches, local or
//     remote-tracking) that the remote does not have under another name,
//     to any remote: the checkpoint remote too, where such a copy under
//     another name (`git push --mirror` copies refs/remotes/origin/entire/*)
//     would outlive a purge of the entire branches.
//
// This is what keeps `git push --all fork`, `git push --mirror` and a tag on
// a merge of entire/checkpoints/v1 from publishing session data. Deleting a
// ref on a remote is allowed.
//
// The history check relies on entire's branches being orphan histories
// (SPEC 3.6, 3.7) and costs two `git rev-list --count` runs over the pushed
// range: the commits of the pushed refs minus what the remote is known to
// have (the remote SHAs of the input and refs/remotes/<remote>/*), counted
// once as is and once also minus entire's branch tips. git walks entire's
// histories only as far back as the pushed range's dates reach, so the cost
// follows what is pushed, not the size of the repository. It is skipped
// when there is no entire branch to protect. A git failure in the check is
// returned as an error that does not wrap ErrRefused (the push goes on).
func Guard(ctx context.Context, repo *gitrepo.Repo, refs io.Reader, opts Options) error {
	cp := opts.CheckpointRemote
	if cp == "" {
		cp = DefaultCheckpointRemote
	}
	toCheckpointRemote := opts.PushSessions && isCheckpointRemote(repo, opts.Remote, cp)
	var refused []string
	var rest []pushedRef
	sc := bufio.NewScanner(refs)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 || f[1] == zeroSHA {
			continue
		}
		p := pushedRef{local: f[0], localSHA: f[1], remote: f[2], remoteSHA: f[3]}
		switch byName(p, toCheckpointRemote) {
		case nameRefused:
			refused = append(refused, p.name())
		case nameOther:
			rest = append(rest, p)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read pushed refs: %w", err)
	}
	var errs []error
	if len(rest) > 0 {
		reaching, err := reachingEntire(ctx, repo, rest, opts.Remote)
		if err != nil {
			errs = append(errs, err)
		}
		for _, p := range reaching {
			refused = append(refused, p.name()+" (its history holds commits of entire's branches)")
		}
	}
	if len(refused) == 0 {
		return errors.Join(errs...)
	}
	sort.Strings(refused)
	why := fmt.Sprintf("only the checkpoint remote %q receives session data", cp)
	if !opts.PushSessions {
		why = "strategy_options.push_sessions is false"
	}
	return fmt.Errorf("%w: not pushing %s to %s (%s; shadow branches and refs/entire/ are never pushed). Push your branches by name instead of --all/--mirror, or delete these refs from the push",
		ErrRefused, strings.Join(refused, ", "), opts.Remote, why)
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

// byName applies the rules on ref names: anything under refs/entire/ is
// refused, and so is refs/heads/entire/* on either side unless it is an
// entire/<name>/v1 branch going to the checkpoint remote.
func byName(p pushedRef, toCheckpointRemote bool) nameVerdict {
	for _, ref := range []string{p.local, p.remote} {
		if strings.HasPrefix(ref, localPrefix) {
			return nameRefused
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

// reachingEntire returns the pushed refs (none of them entire's own
// branches) whose new commits (those the remote is not known to have
// outside entire's branches) include commits of entire's orphan
// histories: the shadow branches and the entire/*/v1 branches with their
// remote-tracking refs.
func reachingEntire(ctx context.Context, repo *gitrepo.Repo, pushed []pushedRef, remote string) ([]pushedRef, error) {
	tips, err := entireTips(repo)
	if err != nil || len(tips) == 0 {
		return nil, err
	}
	known, err := remoteKnown(repo, pushed, remote)
	if err != nil {
		return nil, err
	}
	var todo []pushedRef
	for _, p := range pushed {
		if p.localSHA != p.remoteSHA && repo.HasObject(plumbing.NewHash(p.localSHA)) {
			todo = append(todo, p)
		}
	}
	if len(todo) == 0 {
		return nil, nil
	}
	hit, err := reaches(ctx, repo, todo, known, tips)
	if err != nil || !hit {
		return nil, err
	}
	if len(todo) == 1 {
		return todo, nil
	}
	// Which ones: one pair of counts per ref (only on this refusing path).
	var out []pushedRef
	for _, p := range todo {
		hit, err := reaches(ctx, repo, []pushedRef{p}, known, tips)
		if err != nil {
			return nil, err
		}
		if hit {
			out = append(out, p)
		}
	}
	return out, nil
}

// reaches reports whether the commits of pushed, minus known, include
// commits reachable from tips: whether subtracting tips too makes the count
// smaller.
func reaches(ctx context.Context, repo *gitrepo.Repo, pushed []pushedRef, known, tips []string) (bool, error) {
	var in strings.Builder
	for _, p := range pushed {
		in.WriteString(p.localSHA + "\n")
	}
	for _, k := range known {
		in.WriteString("^" + k + "\n")
	}
	all, err := revCount(ctx, repo, in.String())
	if err != nil || all == "0" {
		return false, err
	}
	for _, t := range tips {
		in.WriteString("^" + t + "\n")
	}
	outside, err := revCount(ctx, repo, in.String())
	if err != nil {
		return false, err
	}
	return outside != all, nil
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
// under names other than entire's: the shadow branch tips, the
// entire/<name>/v1 branch tips and their remote-tracking refs. Other
// branches under entire/ are not entire's orphan histories (a user's
// "entire/feature" holds the user's commits) and are left out: the name
// rule alone covers them.
func entireTips(repo *gitrepo.Repo) ([]string, error) {
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
		if _, _, shadow := checkpoint.ParseShadowBranch(b); shadow || branchPattern.MatchString(b) {
			add(h)
		}
	}
	remotes, err := repo.ListRefs("refs/remotes/")
	if err != nil {
		return nil, err
	}
	for name, h := range remotes {
		if i := strings.Index(string(name), "/entire/"); i >= 0 && branchPattern.MatchString(string(name)[i+1:]) {
			add(h)
		}
	}
	return out, nil
}

// remoteKnown returns the commits the remote is known to have under names
// other than entire's: the remote SHAs of the pushed refs that exist here,
// and the remote-tracking refs of a named remote but its entire/ ones
// (that the remote has entire's history as entire's branches does not
// make a copy under another name harmless).
func remoteKnown(repo *gitrepo.Repo, pushed []pushedRef, remote string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, p := range pushed {
		if p.remoteSHA != zeroSHA && !seen[p.remoteSHA] && repo.HasObject(plumbing.NewHash(p.remoteSHA)) {
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
		if strings.HasPrefix(string(name), "refs/remotes/"+remote+"/entire/") {
			continue
		}
		if s := h.String(); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out, nil
}
