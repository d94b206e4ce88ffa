// Package secretscan looks for secrets that are already stored on entire's
// branches (the metadata, hides and notes branches and the shadow branches):
// data written before redaction existed, by an older version, or with rules
// that have since improved. It reports where each one is without ever
// revealing it.
package secretscan

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/redact"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Finding is one secret found in a stored blob. It holds no secret text.
type Finding struct {
	// Ref is the branch the blob is reachable from (short name).
	Ref string
	// Path is the blob's path in the branch's tree where it was first
	// seen.
	Path string
	// Blob is the blob's hash.
	Blob string
	// CheckpointID is the checkpoint the path belongs to ("" outside the
	// metadata branch's checkpoint directories).
	CheckpointID string
	// RuleID is the detection rule (a gitleaks rule ID, or high-entropy).
	RuleID string
	// Offset is the byte offset of the secret in the blob.
	Offset int
}

// Scan reads every blob reachable from the entire branches (their whole
// history, since pushed history is public too) and returns the secrets the
// redactor finds in them, sorted by ref, path and offset. Blobs larger than
// maxBlob bytes are skipped (0: 64 MB).
func Scan(ctx context.Context, repo *gitrepo.Repo, r *redact.Redactor, maxBlob int64) ([]Finding, error) {
	if maxBlob <= 0 {
		maxBlob = 64 << 20
	}
	refs, err := repo.ListRefs("refs/heads/entire/")
	if err != nil {
		return nil, err
	}
	var names []string
	for name := range refs {
		names = append(names, string(name))
	}
	sort.Strings(names)
	seen := map[string]bool{}
	var out []Finding
	for _, ref := range names {
		todo, err := unseenBlobs(ctx, repo, seen, ref)
		if err != nil {
			return nil, err
		}
		short := strings.TrimPrefix(ref, "refs/heads/")
		err = readBlobs(ctx, repo, todo, maxBlob, func(b blobPath, data []byte) {
			for _, f := range scanBlob(r, b.path, data) {
				out = append(out, Finding{Ref: short, Path: b.path, Blob: b.hash, CheckpointID: checkpointOf(short, b.path), RuleID: f.RuleID, Offset: f.Start})
			}
		})
		if err != nil {
			return nil, err
		}
	}
	cp, err := scanCheckpointRefs(ctx, repo, r, maxBlob, seen)
	if err != nil {
		return nil, err
	}
	out = append(out, cp...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Ref != b.Ref {
			return a.Ref < b.Ref
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Offset < b.Offset
	})
	return out, nil
}

// scanCheckpointRefs scans the blobs of the checkpoints stored as refs
// (SPEC 10.3) that seen does not hold, all refs' histories in one walk,
// and names for each finding every checkpoint ref that holds the blob
// (Finding.Ref is the full ref name, which `git push` takes as it is).
func scanCheckpointRefs(ctx context.Context, repo *gitrepo.Repo, r *redact.Redactor, maxBlob int64, seen map[string]bool) ([]Finding, error) {
	refs, err := repo.ListRefs(checkpoint.RefPrefix)
	if err != nil || len(refs) == 0 {
		return nil, err
	}
	todo, err := unseenBlobs(ctx, repo, seen, "--glob="+checkpoint.RefPrefix+"*")
	if err != nil {
		return nil, err
	}
	var found []Finding
	err = readBlobs(ctx, repo, todo, maxBlob, func(b blobPath, data []byte) {
		for _, f := range scanBlob(r, b.path, data) {
			found = append(found, Finding{Path: b.path, Blob: b.hash, RuleID: f.RuleID, Offset: f.Start})
		}
	})
	if err != nil || len(found) == 0 {
		return nil, err
	}
	want := map[plumbing.Hash]bool{}
	for _, f := range found {
		want[plumbing.NewHash(f.Blob)] = true
	}
	var out []Finding
	for name, tip := range refs {
		id, ok := checkpoint.IDOfRef(name)
		if !ok {
			continue
		}
		held, err := blobsHeld(repo, tip, want)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, f := range found {
			if held[plumbing.NewHash(f.Blob)] {
				f.Ref, f.CheckpointID = string(name), string(id)
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// blobsHeld returns which of want the history of commit tip holds (a
// checkpoint ref's few commits, read in process).
func blobsHeld(repo *gitrepo.Repo, tip plumbing.Hash, want map[plumbing.Hash]bool) (map[plumbing.Hash]bool, error) {
	held := map[plumbing.Hash]bool{}
	seenTrees := map[plumbing.Hash]bool{}
	var walk func(h plumbing.Hash) error
	walk = func(h plumbing.Hash) error {
		if seenTrees[h] {
			return nil
		}
		seenTrees[h] = true
		t, err := repo.Git.TreeObject(h)
		if err != nil {
			return err
		}
		for _, e := range t.Entries {
			switch {
			case e.Mode == filemode.Dir:
				if err := walk(e.Hash); err != nil {
					return err
				}
			case want[e.Hash]:
				held[e.Hash] = true
			}
		}
		return nil
	}
	c, err := repo.Git.CommitObject(tip)
	for i := 0; err == nil && i < 10000; i++ {
		if err := walk(c.TreeHash); err != nil {
			return nil, err
		}
		if len(c.ParentHashes) == 0 {
			return held, nil
		}
		c, err = repo.Git.CommitObject(c.ParentHashes[0])
	}
	return held, err
}

// scanBlob scans a blob as JSON (or JSONL, line by line) when it looks like
// it, else as text.
func scanBlob(r *redact.Redactor, path string, data []byte) []redact.Finding {
	if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		return nil // binary
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil
	}
	if strings.HasSuffix(path, ".jsonl") || strings.Contains(path, ".jsonl.") || (trimmed[0] == '{' && bytes.Contains(trimmed, []byte("}\n{"))) {
		var out []redact.Finding
		off := 0
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			for _, f := range r.ScanJSON(bytes.TrimRight(line, "\n")) {
				f.Start += off
				f.End += off
				out = append(out, f)
			}
			off += len(line)
		}
		return out
	}
	if trimmed[0] == '{' || trimmed[0] == '[' {
		return r.ScanJSON(data)
	}
	return r.Scan(string(data))
}

// checkpointOf returns the checkpoint ID of a metadata-branch path
// ("a3/b2c4d5e6f7/0/full.jsonl" -> "a3b2c4d5e6f7").
func checkpointOf(ref, path string) string {
	if ref != checkpoint.MetadataBranch {
		return ""
	}
	parts := strings.SplitN(path, "/", 3)
	if len(parts) < 2 {
		return ""
	}
	if id := checkpoint.ID(parts[0] + parts[1]); id.Valid() {
		return string(id)
	}
	return ""
}

type blobPath struct{ hash, path string }

// ScanRange scans what a push of include sends to a remote that has
// exclude: the blobs that the commits reachable from include and not from
// exclude add or change (each against each of its parents), and the
// messages of those commits, so that its cost follows the new commits, not
// the branch: `git rev-list --objects include --not exclude` would first
// mark every object of the excluded trees, a walk of the whole metadata
// tree. Findings name the path each blob was first seen at; Ref is empty.
func ScanRange(ctx context.Context, repo *gitrepo.Repo, r *redact.Redactor, include, exclude []plumbing.Hash, maxBlob int64) ([]Finding, error) {
	return ScanRangeCached(ctx, repo, r, include, exclude, maxBlob, nil)
}

// ScanRangeCached is ScanRange that skips the blobs clean has (scanned
// clean by an earlier push under the same rules) and adds to it the large
// blobs it finds clean; the caller saves it. A blob with a finding is
// never added. clean may be nil.
func ScanRangeCached(ctx context.Context, repo *gitrepo.Repo, r *redact.Redactor, include, exclude []plumbing.Hash, maxBlob int64, clean *CleanSet) ([]Finding, error) {
	if maxBlob <= 0 {
		maxBlob = 64 << 20
	}
	args := hashArgs(include)
	if len(args) == 0 {
		return nil, nil
	}
	if ex := hashArgs(exclude); len(ex) > 0 {
		args = append(append(args, "--not"), ex...)
	}
	blobs, err := changedBlobs(ctx, repo, args...)
	if err != nil {
		return nil, err
	}
	if clean != nil {
		kept := blobs[:0]
		for _, b := range blobs {
			if !clean.Has(b.hash) {
				kept = append(kept, b)
			}
		}
		blobs = kept
	}
	var out []Finding
	err = readBlobs(ctx, repo, blobs, maxBlob, func(b blobPath, data []byte) {
		found := scanBlob(r, b.path, data)
		for _, f := range found {
			out = append(out, Finding{Path: b.path, Blob: b.hash, RuleID: f.RuleID, Offset: f.Start})
		}
		if len(found) == 0 {
			clean.add(b.hash, int64(len(data)))
		}
	})
	if err != nil {
		return nil, err
	}
	msgs, err := repo.RunGit(ctx, append([]string{"log", "--format=%H%x00%B%x1e"}, args...)...)
	if err != nil {
		return nil, err
	}
	for _, rec := range strings.Split(string(msgs), "\x1e") {
		h, body, ok := strings.Cut(strings.TrimLeft(rec, "\n"), "\x00")
		if !ok {
			continue
		}
		for _, f := range r.Scan(body) {
			out = append(out, Finding{Path: "commit message", Blob: h, RuleID: f.RuleID, Offset: f.Start})
		}
	}
	return out, nil
}

func hashArgs(hs []plumbing.Hash) []string {
	var out []string
	for _, h := range hs {
		if !h.IsZero() {
			out = append(out, h.String())
		}
	}
	return out
}

// changedBlobs lists the blobs that the commits of `git log <args>` add
// or change against each of their parents (against none for a root
// commit), with the first path each was seen at, from one `git log --raw`.
func changedBlobs(ctx context.Context, repo *gitrepo.Repo, args ...string) ([]blobPath, error) {
	out, err := repo.RunGit(ctx, append([]string{"log", "--raw", "--no-abbrev", "--no-renames", "-m", "--root", "-r", "--format=%x00"}, args...)...)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var blobs []blobPath
	for _, line := range strings.Split(string(out), "\n") {
		// :<src mode> <dst mode> <src> <dst> <status>\t<path>
		meta, path, ok := strings.Cut(line, "\t")
		if !ok || !strings.HasPrefix(meta, ":") {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 5 || f[4] == "D" || f[1] == "160000" || f[1] == "000000" {
			continue
		}
		if dst := f[3]; !seen[dst] {
			seen[dst] = true
			blobs = append(blobs, blobPath{dst, path})
		}
	}
	return blobs, nil
}

// unseenBlobs is listBlobs of args without the blobs seen holds, which it
// then holds too.
func unseenBlobs(ctx context.Context, repo *gitrepo.Repo, seen map[string]bool, args ...string) ([]blobPath, error) {
	blobs, err := listBlobs(ctx, repo, args...)
	if err != nil {
		return nil, err
	}
	var todo []blobPath
	for _, b := range blobs {
		if !seen[b.hash] {
			seen[b.hash] = true
			todo = append(todo, b)
		}
	}
	return todo, nil
}

// listBlobs lists the blobs of `git rev-list --objects <args>` with the
// first path each was seen at (rev-list walks history far faster than
// go-git).
func listBlobs(ctx context.Context, repo *gitrepo.Repo, args ...string) ([]blobPath, error) {
	out, err := repo.RunGit(ctx, append([]string{"rev-list", "--objects", "--filter=object:type=blob"}, args...)...)
	if err != nil {
		// Older gits lack --filter for rev-list without a promisor: list all.
		if out, err = repo.RunGit(ctx, append([]string{"rev-list", "--objects"}, args...)...); err != nil {
			return nil, err
		}
	}
	var blobs []blobPath
	for _, line := range strings.Split(string(out), "\n") {
		hash, path, ok := strings.Cut(line, " ")
		if ok && path != "" {
			blobs = append(blobs, blobPath{hash, path})
		}
	}
	return blobs, nil
}

// readBlobs streams the given objects through one `git cat-file --batch`
// and calls fn for each blob no larger than maxBlob.
func readBlobs(ctx context.Context, repo *gitrepo.Repo, blobs []blobPath, maxBlob int64, fn func(blobPath, []byte)) error {
	names := make([]string, len(blobs))
	for i, b := range blobs {
		names[i] = b.hash
	}
	i := 0
	return repo.Runner().ReadBatch(ctx, names, func(obj *gitrepo.BatchObject) error {
		b := blobs[i]
		i++
		if obj.Missing() || obj.Type != "blob" || obj.Size > maxBlob {
			return nil
		}
		data := make([]byte, obj.Size)
		if _, err := io.ReadFull(obj.Body, data); err != nil {
			return fmt.Errorf("git cat-file: read %s: %w", obj.Hash, err)
		}
		fn(b, data)
		return nil
	})
}
