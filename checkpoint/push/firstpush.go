package push

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
)

// The entire branches never arrive first on a remote: a forge makes the
// first branch pushed to an empty repository its default branch. When a
// push brings the user's first branch, PrePush leaves the entire branches
// for a push that starts once the user's has landed (WaitLanded).

// LandedRef is a ref the user's push sends: its name on the remote and the
// commit it sends.
type LandedRef struct {
	Ref string `json:"ref"`
	SHA string `json:"sha"`
}

// UserBranches returns the branches of git's pre-push input (refs) that
// the push creates or moves, other than entire's.
func UserBranches(refs []byte) []LandedRef {
	var out []LandedRef
	pushed, _ := readPushed(bytes.NewReader(refs))
	for _, p := range pushed {
		if !isUserBranch(p.remote) || p.localSHA == zeroSHA {
			continue
		}
		out = append(out, LandedRef{Ref: p.remote, SHA: p.localSHA})
	}
	return out
}

// isUserBranch reports whether ref is a branch other than entire's.
func isUserBranch(ref string) bool {
	return strings.HasPrefix(ref, "refs/heads/") && !strings.HasPrefix(ref, "refs/heads/entire/")
}

// remoteHasUserBranch reports whether remote has a branch other than
// entire's: one the push moves (git says what the remote holds), a
// remote-tracking branch of it (when trusted: they belong to its current
// URL), or else one that `git ls-remote --heads` lists.
func remoteHasUserBranch(ctx context.Context, repo *gitrepo.Repo, remote string, trusted bool, opts Options) (bool, error) {
	pushed, _ := readPushed(bytes.NewReader(opts.Refs))
	for _, p := range pushed {
		if isUserBranch(p.remote) && p.remoteSHA != zeroSHA {
			return true, nil
		}
	}
	tracked, err := repo.ListRefs("refs/remotes/" + remote + "/")
	if err != nil {
		return false, err
	}
	if !trusted {
		tracked = nil
	}
	for name := range tracked {
		b := strings.TrimPrefix(string(name), "refs/remotes/"+remote+"/")
		if b != "HEAD" && !strings.HasPrefix(b, "entire/") {
			return true, nil
		}
	}
	heads, err := lsRemoteHeads(ctx, &runner{repo: repo, timeout: timeoutOr(opts.Timeout), env: opts.Env}, remote)
	if err != nil {
		return false, err
	}
	for ref := range heads {
		if isUserBranch(ref) {
			return true, nil
		}
	}
	return false, nil
}

// lsRemoteHeads lists the branches of remote with their commits.
func lsRemoteHeads(ctx context.Context, r *runner, remote string) (map[string]string, error) {
	out, err := r.run(ctx, "ls-remote", "--heads", remote)
	if err != nil {
		return nil, fmt.Errorf("list the branches of %s: %w", remote, err)
	}
	heads := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		sha, ref, ok := strings.Cut(sc.Text(), "\t")
		if ok {
			heads[ref] = sha
		}
	}
	return heads, nil
}

// WaitLanded waits until remote holds one of refs at the commit the push
// sent (the user's push landed), asking `git ls-remote` at growing
// intervals, for at most limit. It returns an error when none landed in
// time (the push failed: the remote is still without a branch of the
// user's).
func WaitLanded(ctx context.Context, repo *gitrepo.Repo, remote string, refs []LandedRef, limit time.Duration, env []string) error {
	r := &runner{repo: repo, timeout: DefaultTimeout, env: env}
	deadline := time.Now().Add(limit)
	pause := 200 * time.Millisecond
	for {
		heads, err := lsRemoteHeads(ctx, r.withDeadline(deadline), remote)
		if err == nil {
			for _, want := range refs {
				if heads[want.Ref] == want.SHA {
					return nil
				}
			}
		}
		if time.Until(deadline) < pause {
			if err != nil {
				return err
			}
			return fmt.Errorf("the push to %s did not land within %s", remote, limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
		pause = min(pause*2, 5*time.Second)
	}
}
