package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// MigrateResult is what MigrateToRefs did.
type MigrateResult struct {
	// Copied checkpoints got their ref; Present already had one (an
	// earlier, interrupted run, or a teammate's migration fetched).
	Copied, Present int
}

// MigrateToRefs copies every checkpoint of the metadata branch (the local
// branch, else the destination's copy) into its own ref (SPEC 10.3),
// keeping its ID: the ref's tree is the checkpoint's directory with the
// paths in its root metadata.json written from the root. Each ref's one
// commit has the author and time of the branch commit that first wrote
// the checkpoint, and is queued for the next push. A checkpoint that has a
// ref already is left alone, so a run that was stopped is resumed by
// running it again; nothing is deleted. progress, when set, is called
// after each checkpoint with the count done and the total.
func (s *Store) MigrateToRefs(ctx context.Context, progress func(done, total int)) (MigrateResult, error) {
	var res MigrateResult
	tip, err := s.tip()
	if err != nil || tip.IsZero() {
		return res, err
	}
	root, err := s.repo.CommitTree(tip)
	if err != nil {
		return res, fmt.Errorf("read %s: %w", MetadataBranch, err)
	}
	var ids []ID
	dirs := map[ID]plumbing.Hash{}
	for _, shard := range root.Entries {
		if shard.Mode != filemode.Dir || len(shard.Name) != 2 {
			continue
		}
		sub, err := s.repo.Git.TreeObject(shard.Hash)
		if err != nil {
			return res, fmt.Errorf("read shard %s: %w", shard.Name, err)
		}
		for _, e := range sub.Entries {
			if id := ID(shard.Name + e.Name); e.Mode == filemode.Dir && id.Valid() && !id.IsULID() {
				ids, dirs[id] = append(ids, id), e.Hash
			}
		}
	}
	have, err := s.repo.ListRefs(RefPrefix)
	if err != nil {
		return res, err
	}
	authors, err := firstWriters(ctx, s.repo, tip)
	if err != nil {
		return res, err
	}
	for i, id := range ids {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if _, ok := have[id.RefName()]; ok {
			res.Present++
		} else {
			if err := s.copyToRef(id, dirs[id], authors[id]); err != nil {
				return res, err
			}
			res.Copied++
		}
		if progress != nil {
			progress(i+1, len(ids))
		}
	}
	return res, nil
}

// copyToRef creates checkpoint id's ref from its directory tree dir on the
// metadata branch. sig, when known, is the author of the checkpoint's
// first write.
func (s *Store) copyToRef(id ID, dir plumbing.Hash, sig *object.Signature) error {
	t, err := s.repo.Git.TreeObject(dir)
	if err != nil {
		return fmt.Errorf("checkpoint %s: read tree: %w", id, err)
	}
	tree := dir
	if e, err := t.FindEntry(MetadataFile); err == nil && e.Mode.IsFile() {
		data, err := s.repo.ReadBlob(e.Hash)
		if err != nil {
			return fmt.Errorf("checkpoint %s: %w", id, err)
		}
		// Paths in the root metadata.json are from the tree's root:
		// "/a3/b2c4d5e6f7/0/full.jsonl" becomes "/0/full.jsonl".
		moved := bytes.ReplaceAll(data, []byte(`"/`+id.Shard()+`/`), []byte(`"/`))
		if !bytes.Equal(moved, data) {
			h, err := s.repo.WriteBlob(moved)
			if err != nil {
				return err
			}
			if tree, err = s.repo.BuildTree(dir, []gitrepo.Change{{Path: MetadataFile, Mode: filemode.Regular, Hash: h}}); err != nil {
				return err
			}
		}
	}
	author := s.repo.Author(s.now())
	if sig != nil {
		author = *sig
	}
	committer := s.repo.Author(s.now())
	msg := fmt.Sprintf("Checkpoint: %s\n\nCopied from %s.\n", id, MetadataBranch)
	c, err := s.repo.WriteCommit(&object.Commit{Author: author, Committer: committer, TreeHash: tree, Message: msg})
	if err != nil {
		return err
	}
	if err := s.repo.UpdateRef(id.RefName(), c, plumbing.ZeroHash); err != nil {
		// Another run created it in between: it is there.
		if h, rerr := s.repo.ReadRef(id.RefName()); rerr == nil && !h.IsZero() {
			return nil
		}
		return fmt.Errorf("checkpoint %s: create %s: %w", id, id.RefName(), err)
	}
	return s.Queue(id)
}

// firstWriters maps each checkpoint of the metadata branch at tip to the
// author of the oldest commit whose subject names it ("Checkpoint: <id>"),
// from one `git log` (a tree search per checkpoint would read the branch
// thousands of times).
func firstWriters(ctx context.Context, repo *gitrepo.Repo, tip plumbing.Hash) (map[ID]*object.Signature, error) {
	// go-git's log walks and inflates every commit in Go; git's is many
	// times faster on a history of tens of thousands of commits.
	out, err := repo.RunGit(ctx, "log", "--first-parent", "--format=%an%x1f%ae%x1f%at%x1f%s", tip.String())
	if err != nil {
		return nil, fmt.Errorf("read the history of %s: %w", MetadataBranch, err)
	}
	authors := map[ID]*object.Signature{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.SplitN(line, "\x1f", 4)
		if len(f) != 4 {
			continue
		}
		id, ok := strings.CutPrefix(f[3], "Checkpoint: ")
		if !ok || !ID(id).Valid() {
			continue
		}
		secs, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			continue
		}
		// Newest first: the last seen is the oldest.
		authors[ID(id)] = &object.Signature{Name: f[0], Email: f[1], When: time.Unix(secs, 0).UTC()}
	}
	return authors, nil
}
