package explain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// SaveSummary stores sum, which the caller redacted (Summary.Redacted), as
// the summary of session slot `slot` of checkpoint id: it rewrites only
// that slot's metadata.json in a new commit on the metadata branch,
// "Update summary for checkpoint <id> (session: <sid>)", by the
// repository's git user at time now. Concurrent writers are
// handled by compare-and-swap. The local branch is created from origin's
// copy when only that exists.
//
// remote is the checkpoint destination's remote-tracking ref of the
// metadata branch ("": origin's).
func SaveSummary(ctx context.Context, repo *gitrepo.Repo, remote plumbing.ReferenceName, id checkpoint.ID, slot int, sum *checkpoint.Summary, now time.Time) error {
	if remote == "" {
		remote = checkpoint.RemoteMetadataRef
	}
	path := id.Shard() + "/" + strconv.Itoa(slot) + "/" + checkpoint.MetadataFile
	_, err := repo.UpdateRefFunc(ctx, checkpoint.MetadataRef, func(tip plumbing.Hash) (plumbing.Hash, error) {
		if tip.IsZero() {
			if h, _ := repo.ReadRef(remote); !h.IsZero() {
				tip = h
			}
		}
		if tip.IsZero() {
			return plumbing.ZeroHash, fmt.Errorf("%w: %s (no %s branch)", checkpoint.ErrNotFound, id, checkpoint.MetadataBranch)
		}
		c, err := repo.Git.CommitObject(tip)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read %s: %w", checkpoint.MetadataBranch, err)
		}
		root, err := c.Tree()
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read %s tree: %w", checkpoint.MetadataBranch, err)
		}
		f, err := root.File(path)
		if errors.Is(err, object.ErrFileNotFound) {
			return plumbing.ZeroHash, fmt.Errorf("%w: %s session %d", checkpoint.ErrNotFound, id, slot)
		} else if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read %s: %w", path, err)
		}
		data, err := repo.ReadBlob(f.Hash)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		// Keep every key the file has, ours or not: only "summary" changes.
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("corrupt %s: %w", path, err)
		}
		var meta checkpoint.SessionMetadata
		_ = json.Unmarshal(data, &meta)
		meta.Summary = sum
		out, err := json.MarshalIndent(meta, "", "  ")
		if err != nil {
			return plumbing.ZeroHash, err
		}
		var merged map[string]json.RawMessage
		_ = json.Unmarshal(out, &merged)
		for k := range m {
			if _, ok := merged[k]; !ok {
				out = nil // an unknown key: keep the original's keys
				break
			}
		}
		if out == nil {
			raw, err := json.Marshal(sum)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			m["summary"] = raw
			if out, err = json.MarshalIndent(m, "", "  "); err != nil {
				return plumbing.ZeroHash, err
			}
		}
		blob, err := repo.WriteBlob(append(out, '\n'))
		if err != nil {
			return plumbing.ZeroHash, err
		}
		tree, err := repo.BuildTree(c.TreeHash, []gitrepo.Change{{Path: path, Mode: filemode.Regular, Hash: blob}})
		if err != nil {
			return plumbing.ZeroHash, err
		}
		sig := repo.Author(now)
		msg := fmt.Sprintf("Update summary for checkpoint %s (session: %s)\n", id, meta.SessionID)
		return repo.WriteCommit(&object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree, ParentHashes: []plumbing.Hash{tip}})
	})
	if err != nil {
		return fmt.Errorf("save summary of %s: %w", id, err)
	}
	return nil
}
