package checkpoint

import (
	"context"
	"fmt"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// RemoveOrphaned deletes checkpoints from the metadata branch in one commit,
// "Cleanup: removed N orphaned checkpoints", by Entire CLI <cli@entire.io>
// with the parent's timestamps (SPEC 3.7; `entire clean`). IDs not on the
// branch are ignored; when none is there, or the branch does not exist,
// nothing is written. The commit is compare-and-swapped like every write.
// A checkpoint stored as its own ref (SPEC 10.3) has its local ref
// deleted instead (a copy on the checkpoint remote stays there).
func (s *Store) RemoveOrphaned(ctx context.Context, ids []ID) error {
	repo := s.repo
	var onBranch []ID
	for _, id := range ids {
		h, err := repo.ReadRef(id.RefName())
		if err != nil || h.IsZero() {
			onBranch = append(onBranch, id)
			continue
		}
		if err := repo.DeleteRef(ctx, id.RefName(), h); err != nil {
			return fmt.Errorf("remove checkpoint %s: %w", id, err)
		}
	}
	ids = onBranch
	if len(ids) == 0 {
		return nil
	}
	_, err := repo.UpdateRefFunc(ctx, MetadataRef, func(tip plumbing.Hash) (plumbing.Hash, error) {
		if tip.IsZero() {
			return tip, nil
		}
		parent, err := repo.Git.CommitObject(tip)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		changes := make([]gitrepo.Change, len(ids))
		for i, id := range ids {
			changes[i] = gitrepo.Change{Path: id.Shard(), Delete: true}
		}
		tree, err := repo.BuildTree(parent.TreeHash, changes)
		if err != nil || tree == parent.TreeHash {
			return tip, err
		}
		author := object.Signature{Name: "Entire CLI", Email: "cli@entire.io", When: parent.Author.When}
		committer := object.Signature{Name: "Entire CLI", Email: "cli@entire.io", When: parent.Committer.When}
		return repo.WriteCommit(&object.Commit{
			Author: author, Committer: committer, TreeHash: tree, ParentHashes: []plumbing.Hash{tip},
			Message: fmt.Sprintf("Cleanup: removed %d orphaned checkpoints\n", len(ids)),
		})
	})
	return err
}
