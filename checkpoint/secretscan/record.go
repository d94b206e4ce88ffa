package secretscan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// A purge rewrites history that holds secrets; the old commits must never
// come back, from this clone or any other. Each purge is recorded in
// PurgesFile at the root of the metadata branch, which travels with it:
// every clone's pre-push reads it (the local and the remote branch's) and
// refuses to merge or push history that reaches a purged commit.

// PurgesFile is the record of purges at the root of the metadata branch.
const PurgesFile = "purges.json"

// maxPurgesFile bounds how much of the record is read.
const maxPurgesFile = 64 << 20

// PurgeRecord is one purge of one branch.
type PurgeRecord struct {
	Branch string    `json:"branch"`
	Date   time.Time `json:"date"`
	OldTip string    `json:"old_tip"`
	NewTip string    `json:"new_tip"`
	// Roots are the earliest commits the purge rewrote: a history holds
	// purged commits exactly when it reaches one of them (every commit
	// after a rewritten one was rewritten too).
	Roots []string `json:"roots"`
	// Rewritten are the old IDs of every commit the purge rewrote.
	Rewritten []string `json:"rewritten"`
	// Blobs maps the blobs the purge replaced to their redacted versions:
	// a clone replaying its own commits onto the purged history maps them
	// the same way, whatever its own redaction rules.
	Blobs map[string]string `json:"blobs,omitempty"`
}

// Purges is the content of PurgesFile.
type Purges struct {
	Purges []PurgeRecord `json:"purges"`
}

// Roots returns the roots of every recorded purge, without duplicates.
func (p *Purges) Roots() []plumbing.Hash {
	seen := map[plumbing.Hash]bool{}
	var out []plumbing.Hash
	for _, r := range p.Purges {
		for _, s := range r.Roots {
			h := plumbing.NewHash(s)
			if !h.IsZero() && !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// RewrittenSet returns the IDs of every commit some recorded purge
// rewrote: build it once and look commits up in it (the lists run to a
// branch's whole history).
func (p *Purges) RewrittenSet() map[string]bool {
	out := map[string]bool{}
	for _, r := range p.Purges {
		for _, x := range r.Rewritten {
			out[x] = true
		}
	}
	return out
}

// CleanBlob returns the redacted version of a blob some recorded purge
// replaced, and whether there is one.
func (p *Purges) CleanBlob(h plumbing.Hash) (plumbing.Hash, bool) {
	s := h.String()
	for _, r := range p.Purges {
		if n, ok := r.Blobs[s]; ok {
			return plumbing.NewHash(n), true
		}
	}
	return plumbing.ZeroHash, false
}

// Merge adds the records of o that p lacks (by branch and old tip).
func (p *Purges) Merge(o *Purges) {
	if o == nil {
		return
	}
	have := map[string]bool{}
	for _, r := range p.Purges {
		have[r.Branch+" "+r.OldTip] = true
	}
	for _, r := range o.Purges {
		if !have[r.Branch+" "+r.OldTip] {
			p.Purges = append(p.Purges, r)
			have[r.Branch+" "+r.OldTip] = true
		}
	}
	sort.SliceStable(p.Purges, func(i, j int) bool { return p.Purges[i].Date.Before(p.Purges[j].Date) })
}

// ReadPurges returns the purges recorded in the tree of commit (a
// metadata-branch commit); a zero commit or one without the file gives
// none.
func ReadPurges(repo *gitrepo.Repo, commit plumbing.Hash) (*Purges, error) {
	p := &Purges{}
	if commit.IsZero() {
		return p, nil
	}
	t, err := repo.CommitTree(commit)
	if err != nil {
		return nil, fmt.Errorf("read purges of %s: %w", commit, err)
	}
	if t == nil {
		return p, nil
	}
	e, err := t.FindEntry(PurgesFile)
	if errors.Is(err, object.ErrEntryNotFound) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read purges of %s: %w", commit, err)
	}
	p, err = ReadPurgesBlob(repo, e.Hash)
	if err != nil {
		return nil, fmt.Errorf("read purges of %s: %w", commit, err)
	}
	return p, nil
}

// ReadPurgesBlob decodes a PurgesFile blob, read with a bound: the record
// arrives from teammates' clones.
func ReadPurgesBlob(repo *gitrepo.Repo, h plumbing.Hash) (*Purges, error) {
	blob, err := repo.Git.BlobObject(h)
	if err != nil {
		return nil, fmt.Errorf("read %s blob %s: %w", PurgesFile, h, err)
	}
	if blob.Size > maxPurgesFile {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d read", PurgesFile, blob.Size, maxPurgesFile)
	}
	r, err := blob.Reader()
	if err != nil {
		return nil, fmt.Errorf("read %s blob %s: %w", PurgesFile, h, err)
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, maxPurgesFile))
	if err != nil {
		return nil, fmt.Errorf("read %s blob %s: %w", PurgesFile, h, err)
	}
	return ParsePurges(data)
}

// ParsePurges decodes the content of PurgesFile.
func ParsePurges(data []byte) (*Purges, error) {
	p := &Purges{}
	if err := json.Unmarshal(data, p); err != nil {
		return nil, fmt.Errorf("parse %s: %w", PurgesFile, err)
	}
	return p, nil
}

// EncodePurges encodes p as the content of PurgesFile.
func EncodePurges(p *Purges) ([]byte, error) {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// WritePurges returns a commit on parent whose tree is parent's with
// PurgesFile set to p, with message (the parent's tree when parent is
// zero, an empty tree).
func WritePurges(repo *gitrepo.Repo, parent plumbing.Hash, p *Purges, message string, now time.Time) (plumbing.Hash, error) {
	data, err := EncodePurges(p)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	bh, err := repo.WriteBlob(data)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	base := plumbing.ZeroHash
	var parents []plumbing.Hash
	if !parent.IsZero() {
		c, err := repo.Git.CommitObject(parent)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("record purge: %w", err)
		}
		base, parents = c.TreeHash, []plumbing.Hash{parent}
	}
	tree, err := repo.BuildTree(base, []gitrepo.Change{{Path: PurgesFile, Mode: filemode.Regular, Hash: bh}})
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("record purge: %w", err)
	}
	sig := repo.Author(now)
	return repo.WriteCommit(&object.Commit{Author: sig, Committer: sig, Message: message, TreeHash: tree, ParentHashes: parents})
}

// PurgesRef holds the record of purges of checkpoint refs (SPEC 10.3
// layout, where there may be no metadata branch): a commit whose tree has
// PurgesFile at its root. It is pushed to the checkpoint destination with
// the purged refs.
const PurgesRef = plumbing.ReferenceName("refs/entire/purges")

// RecordPurges adds recs to the record on the metadata branch, in a commit
// of their own on its tip (compare-and-swap); records of checkpoint refs
// go to PurgesRef instead.
func RecordPurges(ctx context.Context, repo *gitrepo.Repo, recs []PurgeRecord, now time.Time) error {
	var branchRecs, refRecs []PurgeRecord
	for _, r := range recs {
		if strings.HasPrefix(r.Branch, checkpoint.RefPrefix) {
			refRecs = append(refRecs, r)
		} else {
			branchRecs = append(branchRecs, r)
		}
	}
	if err := recordPurgesOn(ctx, repo, PurgesRef, refRecs, now); err != nil {
		return err
	}
	return recordPurgesOn(ctx, repo, checkpoint.MetadataRef, branchRecs, now)
}

// recordPurgesOn adds recs to the record of ref.
func recordPurgesOn(ctx context.Context, repo *gitrepo.Repo, ref plumbing.ReferenceName, recs []PurgeRecord, now time.Time) error {
	if len(recs) == 0 {
		return nil
	}
	var branches []string
	for _, r := range recs {
		branches = append(branches, r.Branch)
	}
	msg := "Record purge of " + strings.Join(branches, ", ") + "\n\nThe commits listed in " + PurgesFile + " were rewritten to remove secrets; no clone may bring them back.\n"
	_, err := repo.UpdateRefFunc(ctx, ref, func(tip plumbing.Hash) (plumbing.Hash, error) {
		p, err := ReadPurges(repo, tip)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		p.Merge(&Purges{Purges: recs})
		return WritePurges(repo, tip, p, msg, now)
	})
	if err != nil {
		return fmt.Errorf("record purge on %s: %w", ref.Short(), err)
	}
	return nil
}

// ForgetRemoteTracking deletes the remote-tracking refs of branch (with
// their reflogs): after a purge they name the old history, and git's own
// push of the purged branch would log their old value. The next fetch or
// push recreates them.
func ForgetRemoteTracking(ctx context.Context, repo *gitrepo.Repo, branch string) error {
	remotes, err := repo.ListRefs("refs/remotes/")
	if err != nil {
		return err
	}
	for name := range remotes {
		if !strings.HasSuffix(string(name), "/"+branch) {
			continue
		}
		if _, err := repo.RunGit(ctx, "update-ref", "-d", string(name)); err != nil {
			return fmt.Errorf("forget %s: %w", name, err)
		}
	}
	return nil
}

// ExpireReflogs drops the reflog entries of branch and of its
// remote-tracking refs, which would keep rewritten commits reachable.
func ExpireReflogs(ctx context.Context, repo *gitrepo.Repo, branch string) error {
	refs := []string{"refs/heads/" + branch}
	if strings.HasPrefix(branch, "refs/") {
		refs = []string{branch} // a checkpoint ref: no remote-tracking copies
	}
	remotes, err := repo.ListRefs("refs/remotes/")
	if err != nil {
		return err
	}
	for name := range remotes {
		if strings.HasSuffix(string(name), "/"+branch) {
			refs = append(refs, string(name))
		}
	}
	sort.Strings(refs)
	// git refuses a ref without a reflog ("points nowhere").
	var logged []string
	for _, ref := range refs {
		if _, err := os.Stat(filepath.Join(repo.CommonDir, "logs", filepath.FromSlash(ref))); err == nil {
			logged = append(logged, ref)
		}
	}
	if len(logged) == 0 {
		return nil
	}
	args := append([]string{"reflog", "expire", "--expire=now", "--expire-unreachable=now"}, logged...)
	if _, err := repo.RunGit(ctx, args...); err != nil {
		return fmt.Errorf("expire reflogs of %s: %w", branch, err)
	}
	return nil
}
