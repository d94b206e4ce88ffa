package secretscan

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/redact"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Purge rewrites the whole history of branch (an entire/* branch) with
// every blob and commit message passed through the redactor, and moves the
// branch to the rewritten tip (compare-and-swap: it fails if the branch
// moved meanwhile). Unchanged blobs, trees and commits keep their hashes.
// It returns the record of the purge: the old and new tips (equal when
// nothing needed redacting), every commit it rewrote and the earliest of
// them. The old objects stay in the repository until git gc prunes them
// (ExpireReflogs drops what keeps them reachable locally), and copies
// already pushed stay on the remote until the branch is pushed again.
//
// branch may also be a full ref name (a checkpoint ref, SPEC 10.3), which
// the record then holds.
func Purge(ctx context.Context, repo *gitrepo.Repo, r *redact.Redactor, branch string, now time.Time) (PurgeRecord, error) {
	rec := PurgeRecord{Branch: branch, Date: now.UTC()}
	ref := plumbing.ReferenceName("refs/heads/" + branch)
	if strings.HasPrefix(branch, "refs/") {
		ref = plumbing.ReferenceName(branch)
	}
	oldTip, err := repo.ReadRef(ref)
	rec.OldTip, rec.NewTip = oldTip.String(), oldTip.String()
	if err != nil || oldTip.IsZero() {
		return rec, err
	}
	out, err := repo.RunGit(ctx, "rev-list", "--reverse", "--topo-order", oldTip.String())
	if err != nil {
		return rec, err
	}
	p := &purger{repo: repo, r: r, blobs: map[plumbing.Hash]plumbing.Hash{}, trees: map[plumbing.Hash]plumbing.Hash{},
		commits: map[plumbing.Hash]plumbing.Hash{}}
	order := strings.Fields(string(out))
	for _, line := range order {
		if err := ctx.Err(); err != nil {
			return rec, err
		}
		if err := p.commit(plumbing.NewHash(line)); err != nil {
			return rec, err
		}
	}
	newTip := p.commits[oldTip]
	if newTip == oldTip {
		return rec, nil
	}
	if err := repo.UpdateRef(ref, newTip, oldTip); err != nil {
		return rec, fmt.Errorf("move %s: %w", branch, err)
	}
	rec.NewTip = newTip.String()
	for old, nh := range p.blobs {
		if old != nh {
			if rec.Blobs == nil {
				rec.Blobs = map[string]string{}
			}
			rec.Blobs[old.String()] = nh.String()
		}
	}
	for _, line := range order {
		h := plumbing.NewHash(line)
		if p.commits[h] == h {
			continue
		}
		rec.Rewritten = append(rec.Rewritten, line)
		if !p.rewrittenParent[h] {
			rec.Roots = append(rec.Roots, line)
		}
	}
	return rec, nil
}

type purger struct {
	repo    *gitrepo.Repo
	r       *redact.Redactor
	blobs   map[plumbing.Hash]plumbing.Hash
	trees   map[plumbing.Hash]plumbing.Hash
	commits map[plumbing.Hash]plumbing.Hash
	// rewrittenParent marks rewritten commits that have a rewritten parent.
	rewrittenParent map[plumbing.Hash]bool
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
	parentChanged := false
	for i, ph := range c.ParentHashes {
		np, ok := p.commits[ph]
		if !ok {
			np = ph
		}
		parents[i] = np
		parentChanged = parentChanged || np != ph
	}
	changed = changed || parentChanged
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
	if parentChanged {
		if p.rewrittenParent == nil {
			p.rewrittenParent = map[plumbing.Hash]bool{}
		}
		p.rewrittenParent[h] = true
	}
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
