package strategy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// History rewrites keep their links. `git commit --amend -m` and a reword
// replace the message, trailer included, and `git rebase -i` drops a
// fixup's message: git's post-rewrite hook names each commit replaced and
// its replacement, and PostRewrite puts back in each replacement the
// Entire-Checkpoint trailers of the commits it replaces. That gives the
// commits new hashes: the rewritten commits and their descendants up to
// HEAD are written again with the trailers added (trees, authors and
// dates unchanged) and HEAD's branch moved to them. Squash and fixup
// within a rebase usually need none of that: prepare-commit-msg already
// puts the trailers of the commented-out messages back
// (restoreSkippedTrailers).

// Rewrite is one line of git's post-rewrite input: commit Old was
// rewritten as New.
type Rewrite struct {
	Old, New plumbing.Hash
}

// maxRewrites bounds the post-rewrite input read.
const maxRewrites = 100000

// ParseRewrites reads git's post-rewrite input, lines "<old> <new>
// [extra]"; malformed lines are skipped.
func ParseRewrites(r io.Reader) []Rewrite {
	var out []Rewrite
	sc := bufio.NewScanner(r)
	for sc.Scan() && len(out) < maxRewrites {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && plumbing.IsHash(f[0]) && plumbing.IsHash(f[1]) {
			out = append(out, Rewrite{Old: plumbing.NewHash(f[0]), New: plumbing.NewHash(f[1])})
		}
	}
	return out
}

// maxUnlistedCommits is how many commits PostRewrite reads below HEAD,
// beyond the rewritten ones git listed, looking for the commits it has to
// write again: those a rebase made that git does not list (an edit stop's
// new commits, an exec's). The walk costs what the rewrite costs, not the
// length of the history.
const maxUnlistedCommits = 100

// PostRewrite handles git's post-rewrite hook (kind "amend" or "rebase"):
// it puts back the Entire-Checkpoint trailers the rewrite dropped, as the
// package comment on History rewrites says, and returns each commit it
// replaced with its replacement. An amend made by a rebase in progress is
// left to the rebase's own post-rewrite. Signed commits are not written
// again (the signature would not survive): their trailers stay lost, with
// a warning. Nothing is written to a checkpoint: the trailers only link.
func PostRewrite(ctx context.Context, env *Env, kind string, rewrites []Rewrite) (map[plumbing.Hash]plumbing.Hash, error) {
	repo := env.Repo
	if kind == "amend" && session.SequenceOperationInProgress(repo.GitDir) {
		return nil, nil
	}
	missing := map[plumbing.Hash][]checkpoint.ID{}
	for _, rw := range rewrites {
		old, err := repo.Git.CommitObject(rw.Old)
		if err != nil {
			continue
		}
		ids := checkpoint.CheckpointsOf(old.Message)
		if len(ids) == 0 {
			continue
		}
		nc, err := repo.Git.CommitObject(rw.New)
		if err != nil {
			continue
		}
		carried := checkpoint.CheckpointsOf(nc.Message)
		for _, id := range ids {
			if !slices.Contains(carried, id) && !slices.Contains(missing[rw.New], id) {
				missing[rw.New] = append(missing[rw.New], id)
			}
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	head, err := repo.Head()
	if err != nil || head.IsZero() {
		return nil, err
	}
	chain, err := chainTo(repo.Git.CommitObject, head, missing, rewriteDepth(rewrites))
	if err != nil {
		return nil, err
	}
	if len(chain) == 0 {
		env.Log.Warn("rewritten commits not found below HEAD; trailers not restored", "kind", kind)
		return nil, nil
	}
	for _, c := range chain {
		if c.PGPSignature != "" {
			env.printf("[entire] %s dropped Entire-Checkpoint trailers of signed commits; not rewriting them (the signature would be lost)\n", kind)
			return nil, nil
		}
	}
	replaced := map[plumbing.Hash]plumbing.Hash{}
	var restored []string
	for _, c := range chain {
		nc := *c
		nc.ParentHashes = make([]plumbing.Hash, len(c.ParentHashes))
		for i, p := range c.ParentHashes {
			if r, ok := replaced[p]; ok {
				p = r
			}
			nc.ParentHashes[i] = p
		}
		if ids := missing[c.Hash]; len(ids) > 0 {
			nc.Message, _ = checkpoint.AddCheckpointTrailers(c.Message, ids)
			for _, id := range ids {
				restored = append(restored, id.String())
			}
		}
		h, err := repo.WriteCommit(&nc)
		if err != nil {
			return nil, fmt.Errorf("restore trailers: %w", err)
		}
		if h != c.Hash {
			replaced[c.Hash] = h
		}
	}
	newHead, ok := replaced[head]
	if !ok {
		return nil, nil
	}
	ref := "HEAD"
	args := []string{"update-ref", "--no-deref"}
	if b, _ := repo.HeadBranch(); b != "" {
		ref, args = "refs/heads/"+b, []string{"update-ref"}
	}
	args = append(args, "-m", "entire: restore Entire-Checkpoint trailers dropped by "+kind, ref, newHead.String(), head.String())
	if _, err := repo.RunGit(ctx, args...); err != nil {
		return nil, fmt.Errorf("restore trailers: move %s: %w", ref, err)
	}
	env.Log.Info("restored trailers after rewrite", "kind", kind, "checkpoints", strings.Join(restored, ","), "head", newHead.String())
	env.printf("[entire] Restored the Entire-Checkpoint trailer(s) %s dropped by %s; HEAD is now %s\n", strings.Join(restored, ", "), kind, newHead.String()[:7])
	return replaced, nil
}

// rewriteDepth is how many first parents of HEAD PostRewrite reads at
// most: the distinct commits the rewrite made, and maxUnlistedCommits.
func rewriteDepth(rewrites []Rewrite) int {
	made := make(map[plumbing.Hash]bool, len(rewrites))
	for _, rw := range rewrites {
		made[rw.New] = true
	}
	return len(made) + maxUnlistedCommits
}

// chainTo returns the first-parent commits from the oldest of targets to
// head, oldest first; nil when a target is not among head's first depth
// first parents (a commit of a side branch of --rebase-merges, or HEAD
// moved since). It reads at most depth commits.
func chainTo(read func(plumbing.Hash) (*object.Commit, error), head plumbing.Hash, targets map[plumbing.Hash][]checkpoint.ID, depth int) ([]*object.Commit, error) {
	var chain []*object.Commit
	found := 0
	for h := head; found < len(targets) && len(chain) < depth; {
		c, err := read(h)
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", h, err)
		}
		chain = append(chain, c)
		if _, ok := targets[h]; ok {
			found++
		}
		if c.NumParents() == 0 {
			break
		}
		h = c.ParentHashes[0]
	}
	if found < len(targets) {
		return nil, nil
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	return chain, nil
}

// PostRewrite puts back the trailers a rewrite dropped (the package-level
// PostRewrite) and moves the sessions based on a commit it replaced onto
// the replacement.
func (m *ManualCommit) PostRewrite(ctx context.Context, kind string, rewrites []Rewrite) error {
	replaced, err := PostRewrite(ctx, m.env, kind, rewrites)
	if err != nil || len(replaced) == 0 {
		return err
	}
	for _, s := range m.recentSessions() {
		base, ok := replaced[plumbing.NewHash(s.BaseCommit)]
		if !ok {
			continue
		}
		err := m.env.Sessions.Update(s.SessionID, func(st *session.State, exists bool) error {
			if !exists {
				return errNoChange
			}
			return m.migrate(ctx, st, base)
		})
		if err != nil && err != errNoChange {
			m.env.Log.Warn("move session to rewritten commit", "session_id", s.SessionID, "error", err)
		}
	}
	return nil
}

// ownLink returns the checkpoint a new commit links to for condensation:
// its Entire-Checkpoint trailer when entire added it for this commit
// (prepare-commit-msg's trailer mark) or when the commit amends one that
// already linked to it (a session is based on a commit with the same
// parents and the same link). Any other trailer came with the message
// from elsewhere (cherry-pick, a squash, a copied message) and links for
// reading only: nothing is condensed into a checkpoint because of it.
func (m *ManualCommit) ownLink(commit *object.Commit) (checkpoint.ID, bool) {
	id, ok := checkpoint.CheckpointOf(commit.Message)
	if !ok {
		return "", false
	}
	if fileExists(filepath.Join(pendingDir(m.env.Repo), trailerPrefix+id.String())) {
		return id, true
	}
	seen := map[string]bool{}
	for _, s := range m.recentSessions() {
		if s.BaseCommit == "" || seen[s.BaseCommit] || s.BaseCommit == commit.Hash.String() {
			continue
		}
		seen[s.BaseCommit] = true
		base, err := m.env.Repo.Git.CommitObject(plumbing.NewHash(s.BaseCommit))
		if err != nil {
			continue
		}
		if got, ok := checkpoint.CheckpointOf(base.Message); ok && got == id && slices.Equal(base.ParentHashes, commit.ParentHashes) {
			return id, true
		}
	}
	m.env.Log.Info("commit carries a trailer entire did not add for it; linked for reading only", "commit", commit.Hash.String(), "checkpoint_id", id.String())
	return "", false
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
