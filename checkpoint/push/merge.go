package push

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/entirecli/entire/checkpoint/secretscan"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// MergeMessage is the message of the commit that joins a local and a remote
// entire branch (SPEC 3.7).
const MergeMessage = "Merge remote session logs\n"

// MergeOptions configures MergeCommits and MergeTrees.
type MergeOptions struct {
	// Checkpoints merges the trees as entire/checkpoints/v1 trees: a
	// checkpoint written on both sides by different sessions keeps all of
	// them (see MergeTrees). False merges any tree by plain union.
	Checkpoints bool
	// Now is the clock for the merge commit; nil means time.Now.
	Now func() time.Time
}

// MergeCommits returns the commit that contains both local and remote: remote
// itself when local is its ancestor, local when remote is an ancestor of
// local, else a new commit with parents local and remote, message
// MergeMessage, the repository's git identity, and the tree MergeTrees
// builds. It writes objects but moves no ref.
func MergeCommits(ctx context.Context, repo *gitrepo.Repo, local, remote plumbing.Hash, opts MergeOptions) (plumbing.Hash, error) {
	if local == remote {
		return local, nil
	}
	if ok, err := isAncestor(ctx, repo, local, remote); err != nil || ok {
		return remote, err
	}
	if ok, err := isAncestor(ctx, repo, remote, local); err != nil || ok {
		return local, err
	}
	lc, err := repo.Git.CommitObject(local)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read commit %s: %w", local, err)
	}
	rc, err := repo.Git.CommitObject(remote)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read commit %s: %w", remote, err)
	}
	tree, err := MergeTrees(repo, lc.TreeHash, rc.TreeHash, opts)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	sig := repo.Author(now())
	return repo.WriteCommit(&object.Commit{
		Author: sig, Committer: sig, Message: MergeMessage,
		TreeHash: tree, ParentHashes: []plumbing.Hash{local, remote},
	})
}

// isAncestor reports whether commit a is an ancestor of (or equal to) b.
func isAncestor(ctx context.Context, repo *gitrepo.Repo, a, b plumbing.Hash) (bool, error) {
	_, err := repo.RunGit(ctx, "merge-base", "--is-ancestor", a.String(), b.String())
	if err == nil {
		return true, nil
	}
	var ge *gitrepo.GitError
	if errors.As(err, &ge) && ge.ExitCode == 1 {
		return false, nil
	}
	return false, err
}

// MergeTrees returns the union of the trees local and remote. Subtrees with
// the same hash on both sides are taken as they are without being read, so
// the cost grows with what differs, not with the size of the trees. Where
// both sides hold different content at the same path, the remote entry wins
// (SPEC 5.4), a directory against a file included.
//
// With opts.Checkpoints, a checkpoint directory (<id[:2]>/<id[2:]>) that
// differs on both sides is merged by session rather than by path: every
// session slot of the remote is kept as it is (never mixed file by file
// with a local slot of the same index), a local slot whose session ID the
// remote lacks moves to the next free slot index, and the root
// metadata.json is recomputed over all slots the way the checkpoint store
// computes it (sessions, checkpoints_count, files_touched, token_usage;
// version, strategy and branch from the remote). When either side's
// metadata of that checkpoint cannot be parsed, the checkpoint falls back to
// the plain union.
func MergeTrees(repo *gitrepo.Repo, local, remote plumbing.Hash, opts MergeOptions) (plumbing.Hash, error) {
	m := &treeMerger{repo: repo, checkpoints: opts.Checkpoints}
	return m.merge(local, remote, "")
}

type treeMerger struct {
	repo        *gitrepo.Repo
	checkpoints bool
}

// merge merges the trees at dir ("" for the root, else "a/b").
func (m *treeMerger) merge(local, remote plumbing.Hash, dir string) (plumbing.Hash, error) {
	if local == remote {
		return local, nil
	}
	lt, rt, err := m.trees(local, remote)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	entries := map[string]object.TreeEntry{}
	for _, e := range lt.Entries {
		entries[e.Name] = e
	}
	for _, re := range rt.Entries {
		le, ok := entries[re.Name]
		if ok && dir == "" && re.Name == secretscan.PurgesFile && le.Hash != re.Hash && le.Mode.IsFile() && re.Mode.IsFile() {
			// Both sides recorded purges: keep every record.
			h, err := mergePurgesFile(m.repo, le.Hash, re.Hash)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			entries[re.Name] = object.TreeEntry{Name: re.Name, Mode: filemode.Regular, Hash: h}
			continue
		}
		if !ok || le == re || le.Mode != filemode.Dir || re.Mode != filemode.Dir {
			entries[re.Name] = re
			continue
		}
		path := joinPath(dir, re.Name)
		var h plumbing.Hash
		if id, ok := checkpointID(path); ok && m.checkpoints {
			h, err = m.mergeCheckpoint(le.Hash, re.Hash, id, path)
		} else {
			h, err = m.merge(le.Hash, re.Hash, path)
		}
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries[re.Name] = object.TreeEntry{Name: re.Name, Mode: filemode.Dir, Hash: h}
	}
	return m.write(entries)
}

// trees reads the local and the remote tree.
func (m *treeMerger) trees(local, remote plumbing.Hash) (lt, rt *object.Tree, err error) {
	if lt, err = m.tree(local); err != nil {
		return nil, nil, err
	}
	if rt, err = m.tree(remote); err != nil {
		return nil, nil, err
	}
	return lt, rt, nil
}

func (m *treeMerger) tree(h plumbing.Hash) (*object.Tree, error) {
	t, err := m.repo.Git.TreeObject(h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	return t, nil
}

// write stores entries as a tree in git's order.
func (m *treeMerger) write(entries map[string]object.TreeEntry) (plumbing.Hash, error) {
	list := make([]object.TreeEntry, 0, len(entries))
	for _, e := range entries {
		list = append(list, e)
	}
	sort.Sort(object.TreeEntrySorter(list))
	return m.repo.WriteTree(list)
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
