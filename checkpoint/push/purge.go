package push

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/entirecli/entire/checkpoint/secretscan"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/utils/merkletrie"
)

// ErrPurgedHistory is returned (wrapped) when both the local and the remote
// branch hold commits a purge rewrote: neither may be pushed or merged.
var ErrPurgedHistory = errors.New("push: both sides hold purged history")

// purgesOf returns the purges recorded on the metadata branch at local and
// at remote (either may be zero), merged.
func purgesOf(repo *gitrepo.Repo, local, remote plumbing.Hash) (*secretscan.Purges, error) {
	p, err := secretscan.ReadPurges(repo, local)
	if err != nil {
		return nil, err
	}
	o, err := secretscan.ReadPurges(repo, remote)
	if err != nil {
		return nil, err
	}
	p.Merge(o)
	return p, nil
}

// reachesPurged reports whether tip's history holds a purged commit: it
// reaches one of the purges' roots. A root this clone never had cannot be
// reached.
func reachesPurged(ctx context.Context, repo *gitrepo.Repo, tip plumbing.Hash, roots []plumbing.Hash) (bool, error) {
	for _, r := range roots {
		if !repo.HasObject(r) {
			continue
		}
		if ok, err := isAncestor(ctx, repo, r, tip); err != nil {
			return false, err
		} else if ok {
			return true, nil
		}
	}
	return false, nil
}

// reconcile joins a local and a remote branch tip when either may hold
// purged history. Without recorded purges, or when neither side reaches
// them, it is MergeCommits. When one side holds purged commits, the other
// is clean: the purged side's own new commits (neither rewritten by a purge
// nor merges) are replayed onto the clean tip (replay), and the purged
// history is dropped. force is true when the result replaces the remote
// (the remote held the purged history): push it with a lease on remote.
func reconcile(ctx context.Context, repo *gitrepo.Repo, branch string, local, remote plumbing.Hash, purges *secretscan.Purges, opts MergeOptions) (tip plumbing.Hash, force bool, err error) {
	roots := purges.Roots()
	if len(roots) == 0 {
		tip, err := MergeCommits(ctx, repo, local, remote, opts)
		return tip, false, err
	}
	localBad, err := reachesPurged(ctx, repo, local, roots)
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	remoteBad, err := reachesPurged(ctx, repo, remote, roots)
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	switch {
	case localBad && remoteBad:
		return plumbing.ZeroHash, false, fmt.Errorf("%s: %w", branch, ErrPurgedHistory)
	case localBad:
		tip, err := replay(ctx, repo, remote, local, purges)
		return tip, false, err
	case remoteBad:
		tip, err := replay(ctx, repo, local, remote, purges)
		return tip, tip != local || remote != local, err
	}
	tip, err = MergeCommits(ctx, repo, local, remote, opts)
	return tip, false, err
}

// replay rebuilds the commits of from that onto lacks, oldest first, on
// onto: each commit's changes against its first parent, file by file, with
// its author, committer and message. Commits a purge rewrote and merges
// are skipped (what they hold is the purged history, or what their parents
// brought); a blob a purge replaced is replaced the same way. A commit
// that changes nothing on the new base is dropped. It returns the new tip.
func replay(ctx context.Context, repo *gitrepo.Repo, onto, from plumbing.Hash, purges *secretscan.Purges) (plumbing.Hash, error) {
	out, err := repo.RunGit(ctx, "rev-list", "--reverse", "--topo-order", "--no-merges", from.String(), "--not", onto.String())
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("list commits to replay: %w", err)
	}
	tip := onto
	tipTree := plumbing.ZeroHash
	if !tip.IsZero() {
		c, err := repo.Git.CommitObject(tip)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read commit %s to replay onto: %w", tip, err)
		}
		tipTree = c.TreeHash
	}
	rewritten := purges.RewrittenSet()
	for _, line := range strings.Fields(string(out)) {
		if rewritten[line] {
			continue
		}
		h := plumbing.NewHash(line)
		c, err := repo.Git.CommitObject(h)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read commit %s to replay: %w", h, err)
		}
		changes, err := commitChanges(repo, c, purges)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		tree, err := repo.BuildTree(tipTree, changes)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if tree == tipTree {
			continue
		}
		var parents []plumbing.Hash
		if !tip.IsZero() {
			parents = []plumbing.Hash{tip}
		}
		nh, err := repo.WriteCommit(&object.Commit{Author: c.Author, Committer: c.Committer, Message: c.Message, TreeHash: tree, ParentHashes: parents})
		if err != nil {
			return plumbing.ZeroHash, err
		}
		tip, tipTree = nh, tree
	}
	return tip, nil
}

// commitChanges lists the file changes of c against its first parent (an
// empty tree for a root commit), the purge record left out and purged
// blobs mapped to their redacted versions.
func commitChanges(repo *gitrepo.Repo, c *object.Commit, purges *secretscan.Purges) ([]gitrepo.Change, error) {
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read commit %s tree %s: %w", c.Hash, c.TreeHash, err)
	}
	var parent *object.Tree
	if len(c.ParentHashes) > 0 {
		pc, err := repo.Git.CommitObject(c.ParentHashes[0])
		if err != nil {
			return nil, fmt.Errorf("read parent %s of commit %s: %w", c.ParentHashes[0], c.Hash, err)
		}
		if parent, err = pc.Tree(); err != nil {
			return nil, fmt.Errorf("read commit %s tree %s: %w", pc.Hash, pc.TreeHash, err)
		}
	}
	diff, err := object.DiffTree(parent, tree)
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", c.Hash, err)
	}
	var out []gitrepo.Change
	for _, d := range diff {
		action, err := d.Action()
		if err != nil {
			return nil, err
		}
		if action == merkletrie.Delete {
			if d.From.Name != secretscan.PurgesFile {
				out = append(out, gitrepo.Change{Path: d.From.Name, Delete: true})
			}
			continue
		}
		if d.To.Name == secretscan.PurgesFile {
			continue
		}
		if action == merkletrie.Modify && d.From.Name != d.To.Name {
			out = append(out, gitrepo.Change{Path: d.From.Name, Delete: true})
		}
		hash := d.To.TreeEntry.Hash
		if clean, ok := purges.CleanBlob(hash); ok {
			hash = clean
		}
		mode := d.To.TreeEntry.Mode
		if mode == filemode.Deprecated {
			mode = filemode.Regular
		}
		out = append(out, gitrepo.Change{Path: d.To.Name, Mode: mode, Hash: hash})
	}
	return out, nil
}

// mergePurgesFile returns the blob of the union of two purge records.
func mergePurgesFile(repo *gitrepo.Repo, local, remote plumbing.Hash) (plumbing.Hash, error) {
	var all *secretscan.Purges
	for _, h := range []plumbing.Hash{local, remote} {
		p, err := secretscan.ReadPurgesBlob(repo, h)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if all == nil {
			all = p
		} else {
			all.Merge(p)
		}
	}
	data, err := secretscan.EncodePurges(all)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return repo.WriteBlob(data)
}
