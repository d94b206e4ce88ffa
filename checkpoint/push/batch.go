package push

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
)

// A push of session data must never hold the user's push for long, and
// must make progress whatever the size of what it sends (issue 30: a
// 20 s all-or-nothing budget and a delta search whose cost grew with the
// transcript left 50 checkpoints behind for good). So:
//
//   - a push sends what is new: git's sparse walk (pack.useSparse, on by
//     default) takes every blob under a new path for new, and every new
//     checkpoint stores its session's transcript chunks again (the same
//     blobs) under its own directory, so each push packed, and searched
//     deltas among, every chunk of the transcript (60 turns of 1.5 MB
//     outputs: 31 objects, 3.5 MB and 7 s of CPU for one new chunk of
//     180 KB; the audit saw 14.5 s). The exact walk sends 12 objects in
//     0.03 s. Blobs over 512 KB (transcript chunks, hides) are also sent
//     without a delta search, which bounds what a chunk that is new can
//     cost;
//   - in the pre-push hook, a push whose new objects are small goes at
//     once, within Options.SyncLimit; anything bigger, or a push still
//     running at the limit, is left to a background push (ErrBackground);
//   - the background push sends a large branch in batches, first-parent
//     commits one after the other, so that each batch that lands is
//     progress the next push does not repeat.

// ErrBackground is returned by PrePush, under Options.SyncLimit, when the
// session data is left (or partly left) for a background push: call
// PrePush again with Options.Background from a process of its own.
var ErrBackground = errors.New("push: session data continues in the background")

// BackgroundBudget bounds a background push's attempts together.
const BackgroundBudget = 10 * time.Minute

// Sizes (on disk, as git reports them) that decide how data is pushed.
const (
	// syncBytes is the most new data the pre-push hook pushes itself.
	syncBytes = 4 << 20
	// batchBytes is about what one batch of a background push sends.
	batchBytes = 16 << 20
)

// packConfig are the git options of every push and fetch of session data:
// the exact walk of what the other side lacks, and objects over 512 KB
// (transcript chunks, hides) sent deflated, never compared for deltas.
func packConfig() []string {
	return []string{"-c", "pack.useSparse=false", "-c", "core.bigFileThreshold=512k"}
}

// newBytes returns the on-disk size of the objects the tips reach that the
// known commits do not (git rev-list --disk-usage).
func newBytes(ctx context.Context, repo *gitrepo.Repo, tips, known []plumbing.Hash) (int64, error) {
	var in strings.Builder
	for _, h := range tips {
		in.WriteString(h.String() + "\n")
	}
	for _, h := range known {
		if !h.IsZero() {
			in.WriteString("^" + h.String() + "\n")
		}
	}
	out, err := repo.RunGitInput(ctx, []byte(in.String()), "rev-list", "--objects", "--disk-usage", "--stdin")
	if err != nil {
		return 0, fmt.Errorf("measure the data to push: %w", err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("measure the data to push: %q: %w", out, err)
	}
	return n, nil
}

// knownTips are the remote-tracking tips of dest's entire branches.
func knownTips(repo *gitrepo.Repo, dest Destination) ([]plumbing.Hash, error) {
	refs, err := repo.ListRefs("refs/remotes/" + dest.Track() + "/entire/")
	if err != nil {
		return nil, err
	}
	out := make([]plumbing.Hash, 0, len(refs))
	for _, h := range refs {
		out = append(out, h)
	}
	return out, nil
}

// pushBatches pushes t's branch to dest in batches of about batch bytes,
// along the first-parent commits from its remote-tracking tip (which
// must be an ancestor: a fast-forward) to its local tip, each batch one
// push that lands on its own. It returns the target left for the last
// push: t with its tracking moved to the last batch that landed. It stops
// at the first batch that does not land, or by deadline.
func (r *runner) pushBatches(ctx context.Context, dest Destination, t target, size, batch int64, deadline time.Time) target {
	if size <= batch {
		return t
	}
	args := []string{"rev-list", "--reverse", "--first-parent"}
	if !t.tracking.IsZero() {
		if ok, err := isAncestor(ctx, r.repo, t.tracking, t.tip); err != nil || !ok {
			return t // the remote moved: the join path handles it
		}
		args = append(args, "--ancestry-path", t.tip.String(), "^"+t.tracking.String())
	} else {
		args = append(args, t.tip.String())
	}
	out, err := r.repo.RunGit(ctx, args...)
	if err != nil {
		return t
	}
	commits := strings.Fields(string(out))
	batches := int((size + batch - 1) / batch)
	step := max(1, (len(commits)+batches-1)/batches)
	for i := step - 1; i < len(commits)-1; i += step {
		if time.Now().After(deadline) {
			break
		}
		next := target{branch: t.branch, tip: plumbing.NewHash(commits[i]), tracking: t.tracking}
		rejected, err := r.withDeadline(deadline).push(ctx, dest, []target{next})
		if err != nil || len(rejected) > 0 {
			break
		}
		t.tracking = next.tip
	}
	return t
}
