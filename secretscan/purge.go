package secretscan

import (
	"context"
	"fmt"
	"strings"

	"github.com/entirecli/entire/gitrepo"
	"github.com/entirecli/entire/redact"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Purge rewrites the whole history of branch (an entire/* branch) with
// every blob and commit message passed through the redactor, and moves the
// branch to the rewritten tip (compare-and-swap: it fails if the branch
// moved meanwhile). Unchanged blobs and trees keep their hashes. It returns
// the old and new tips; they are equal when nothing needed redacting. The
// old objects stay in the repository until git gc prunes them, and copies
// already pushed stay on the remote until the branch is force-pushed.
func Purge(ctx context.Context, repo *gitrepo.Repo, r *redact.Redactor, branch string) (oldTip, newTip plumbing.Hash, err error) {
	ref := plumbing.ReferenceName("refs/heads/" + branch)
	oldTip, err = repo.ReadRef(ref)
	if err != nil || oldTip.IsZero() {
		return oldTip, oldTip, err
	}
	out, err := repo.RunGit(ctx, "rev-list", "--reverse", "--topo-order", oldTip.String())
	if err != nil {
		return oldTip, oldTip, err
	}
	p := &purger{repo: repo, r: r, blobs: map[plumbing.Hash]plumbing.Hash{}, trees: map[plumbing.Hash]plumbing.Hash{}, commits: map[plumbing.Hash]plumbing.Hash{}}
	for _, line := range strings.Fields(string(out)) {
		if err := ctx.Err(); err != nil {
			return oldTip, oldTip, err
		}
		if err := p.commit(plumbing.NewHash(line)); err != nil {
			return oldTip, oldTip, err
		}
	}
	newTip = p.commits[oldTip]
	if newTip != oldTip {
		if err := repo.UpdateRef(ref, newTip, oldTip); err != nil {
			return oldTip, oldTip, fmt.Errorf("move %s: %w", branch, err)
		}
	}
	return oldTip, newTip, nil
}

type purger struct {
	repo    *gitrepo.Repo
	r       *redact.Redactor
	blobs   map[plumbing.Hash]plumbing.Hash
	trees   map[plumbing.Hash]plumbing.Hash
	commits map[plumbing.Hash]plumbing.Hash
}

func (p *purger) commit(h plumbing.Hash) error {
	c, err := p.repo.Git.CommitObject(h)
	if err != nil {
		return fmt.Errorf("read commit %s: %w", h, err)
	}
	tree, err := p.tree(c.TreeHash)
	if err != nil {
		return err
	}
	parents := make([]plumbing.Hash, len(c.ParentHashes))
	changed := tree != c.TreeHash
	for i, ph := range c.ParentHashes {
		np, ok := p.commits[ph]
		if !ok {
			np = ph
		}
		parents[i] = np
		changed = changed || np != ph
	}
	msg := p.r.Text(c.Message)
	if !changed && msg == c.Message {
		p.commits[h] = h
		return nil
	}
	nc := &object.Commit{Author: c.Author, Committer: c.Committer, Message: msg, TreeHash: tree, ParentHashes: parents}
	nh, err := p.repo.WriteCommit(nc)
	if err != nil {
		return err
	}
	p.commits[h] = nh
	return nil
}

func (p *purger) tree(h plumbing.Hash) (plumbing.Hash, error) {
	if nh, ok := p.trees[h]; ok {
		return nh, nil
	}
	t, err := p.repo.Git.TreeObject(h)
	if err != nil {
		return h, fmt.Errorf("read tree %s: %w", h, err)
	}
	entries := make([]object.TreeEntry, len(t.Entries))
	changed := false
	for i, e := range t.Entries {
		entries[i] = e
		var nh plumbing.Hash
		switch {
		case e.Mode == filemode.Dir:
			nh, err = p.tree(e.Hash)
		case e.Mode.IsFile():
			nh, err = p.blob(e.Name, e.Hash)
		default:
			nh = e.Hash
		}
		if err != nil {
			return h, err
		}
		if nh != e.Hash {
			entries[i].Hash = nh
			changed = true
		}
	}
	nh := h
	if changed {
		if nh, err = p.repo.WriteTree(entries); err != nil {
			return h, err
		}
	}
	p.trees[h] = nh
	return nh, nil
}

func (p *purger) blob(name string, h plumbing.Hash) (plumbing.Hash, error) {
	if nh, ok := p.blobs[h]; ok {
		return nh, nil
	}
	data, err := p.repo.ReadBlob(h)
	if err != nil {
		return h, err
	}
	nh := h
	if len(scanBlob(p.r, name, data)) > 0 {
		red := redactBlob(p.r, name, data)
		if nh, err = p.repo.WriteBlob(red); err != nil {
			return h, err
		}
	}
	p.blobs[h] = nh
	return nh, nil
}

// redactBlob redacts a blob the way scanBlob reads it.
func redactBlob(r *redact.Redactor, name string, data []byte) []byte {
	trimmed := strings.TrimSpace(string(data[:min(len(data), 64)]))
	switch {
	case strings.HasSuffix(name, ".jsonl") || strings.Contains(name, ".jsonl."):
		return r.JSONL(data)
	case strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "["):
		return r.Transcript(data)
	}
	return []byte(r.Text(string(data)))
}
