package strategy

import (
	"bytes"
	"context"
	"fmt"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// codeCommitMessage is the message of an auto-commit code commit:
// "<subject>\n\nEntire-Checkpoint: <id>\n" (SPEC 5.3).
func codeCommitMessage(subject string, id checkpoint.ID) string {
	return subject + "\n\n" + checkpoint.TrailerCheckpoint + ": " + id.String() + "\n"
}

// commitCode commits the current work-tree content of paths on top of head
// to the branch HEAD points to (HEAD itself when detached), with the git
// user as author, and stages the same content in the index so that git
// status shows those paths clean. It returns ZeroHash, and commits
// nothing, when paths is empty or the content equals head's.
//
// The tree is built from head's tree and the given paths only (no
// work-tree walk). The ref is moved with `git update-ref HEAD <new> <old>`
// so that git's own locking and reflog apply and a concurrent user commit
// makes it fail instead of being overwritten.
func (a *AutoCommit) commitCode(ctx context.Context, head plumbing.Hash, paths []string, subject string, id checkpoint.ID) (plumbing.Hash, error) {
	if len(paths) == 0 {
		return plumbing.ZeroHash, nil
	}
	repo := a.env.Repo
	hc, err := repo.Git.CommitObject(head)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read HEAD commit: %w", err)
	}
	changes, err := repo.WorktreeChanges(paths)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	tree, err := repo.BuildTree(hc.TreeHash, changes)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if tree == hc.TreeHash {
		return plumbing.ZeroHash, nil
	}
	sig := repo.Author(a.env.Now())
	commit, err := repo.WriteCommit(&object.Commit{
		Author: sig, Committer: sig, Message: codeCommitMessage(subject, id),
		TreeHash: tree, ParentHashes: []plumbing.Hash{head},
	})
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := repo.RunGit(ctx, "update-ref", "-m", "entire: "+subject, "HEAD", commit.String(), head.String()); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("move branch to the checkpoint commit: %w", err)
	}
	if err := a.stage(ctx, changes); err != nil {
		// The commit is made; a stale index only makes git status show
		// the paths as changed back, which the user can fix with git reset.
		a.env.Log.Warn("stage committed files", "error", err)
		a.env.printf("[entire] warning: could not update the index (%v); run `git reset -q` to resync it\n", err)
	}
	return commit, nil
}

// stage puts the committed blobs into the index with one
// `git update-index -z --index-info` (no re-hashing of the files).
func (a *AutoCommit) stage(ctx context.Context, changes []gitrepo.Change) error {
	var in bytes.Buffer
	for _, c := range changes {
		if c.Delete {
			fmt.Fprintf(&in, "0 %s\t%s\x00", plumbing.ZeroHash, c.Path)
			continue
		}
		fmt.Fprintf(&in, "%o %s\t%s\x00", uint32(c.Mode), c.Hash, c.Path)
	}
	if in.Len() == 0 {
		return nil
	}
	_, err := a.env.Repo.RunGitInput(ctx, in.Bytes(), "update-index", "-z", "--index-info")
	return err
}
