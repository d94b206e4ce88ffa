package rewind

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/entirecli/entire/strategy/rewind/undostore"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// undoNameFormat names undo points by the time they are taken, so that
// names sort oldest first.
const undoNameFormat = "20060102T150405.000000000Z"

// undoInfo describes an undo point: what it precedes and, for a rewind of
// a temporary point, the session and its newest step before the rewind
// (whose metadata an undo records again on the shadow branch).
type undoInfo struct {
	what      string
	sessionID string
	step      plumbing.Hash
	// notes is the notes tree of each namespace the rewind changes, ""
	// for none (see notesBefore).
	notes map[string]string
}

// recordUndo saves what the plan is about to change as an undo point in
// the work tree's store and prunes old points; it returns the point's
// name. It reads the candidate paths (hashing them; only the content of
// the paths the plan overwrites or deletes is kept), the index entries
// that differ from HEAD and the transcripts about to be written back.
// Nothing is written to git.
func (r *Rewinder) recordUndo(ctx context.Context, plan *Plan, info undoInfo) (string, error) {
	store := r.undoStore(ctx)
	ht, err := r.repo.Git.TreeObject(plan.headTree)
	if err != nil {
		return "", fmt.Errorf("read HEAD's tree: %w", err)
	}
	overwrites := map[string]bool{}
	for _, c := range plan.Changes {
		overwrites[c.Path] = true
	}
	for _, p := range plan.overwrites {
		overwrites[p] = true
	}
	pt := undoPoint{What: info.what, Head: plan.head.String(), Notes: info.notes, LogsOnly: plan.logsOnly}
	if info.sessionID != "" {
		pt.SessionID, pt.Step = info.sessionID, info.step.String()
	}
	var b dataBuilder
	d := newDiskReader(r.repo.Root)
	for _, p := range plan.candidates {
		if isProtected(p) {
			continue
		}
		disk, content, err := d.read(p)
		if err != nil {
			return "", err
		}
		if sameFile(disk, lookup(ht, p)) {
			continue // as in HEAD: git has it
		}
		f := savedFile{Path: p}
		if disk.Exists() && disk.Mode != filemode.Dir {
			f.Mode, f.Hash = disk.Mode.String(), disk.Hash.String()
			if overwrites[p] {
				f.Data = b.add(content)
			}
		}
		pt.Files = append(pt.Files, f)
	}
	if !plan.logsOnly {
		out, err := r.repo.RunGit(ctx, "diff-index", "--cached", "-z", "--no-renames", plan.head.String())
		if err != nil {
			return "", fmt.Errorf("read the index: %w", err)
		}
		if pt.Index, err = r.indexEntries(out, &b); err != nil {
			return "", err
		}
	}
	if pt.Transcripts, err = saveTranscripts(plan.Transcripts, &b); err != nil {
		return "", err
	}
	name, err := writePoint(store, r.now(), pt, b.buf)
	if err != nil {
		return "", err
	}
	r.pruneUndo(ctx)
	return name, nil
}

// writePoint writes pt under the first free name from the time at.
func writePoint(store *undostore.Store, at time.Time, pt undoPoint, data []byte) (string, error) {
	at = at.UTC()
	for i := 0; ; i++ {
		name := at.Add(time.Duration(i)).Format(undoNameFormat)
		err := store.Write(name, pt, data)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, undostore.ErrExists) || i == 1000 {
			return "", err
		}
	}
}

// indexEntries parses `git diff-index --cached -z` (or `git diff-tree -r
// -z`) output: the index entries that differ from HEAD. With b, the
// content of each staged blob is saved too (the blobs may be gone by the
// time of an undo). An unmerged index is an error, as for git write-tree.
func (r *Rewinder) indexEntries(out []byte, b *dataBuilder) ([]savedFile, error) {
	var entries []savedFile
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(string(fields[i]), ":"))
		path := string(fields[i+1])
		if len(meta) != 5 {
			return nil, fmt.Errorf("read the index: unexpected diff line %q", fields[i])
		}
		if meta[4] == "U" {
			return nil, fmt.Errorf("read the index: %s is unmerged; resolve the conflict first", path)
		}
		f := savedFile{Path: path}
		if meta[4] != "D" {
			m, err := filemode.New(meta[1])
			if err != nil {
				return nil, fmt.Errorf("read the index: %s: %w", path, err)
			}
			f.Mode, f.Hash = m.String(), meta[3]
			if b != nil && m.IsFile() {
				data, err := r.readIndexBlob(plumbing.NewHash(meta[3]))
				if err != nil {
					return nil, fmt.Errorf("read the index: %s: %w", path, err)
				}
				f.Data = b.add(data)
			}
		}
		entries = append(entries, f)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	return entries, nil
}

// emptyBlob is the hash of the empty blob, which an intent-to-add entry
// names without git having written it.
var emptyBlob = plumbing.ComputeHash(plumbing.BlobObject, nil)

func (r *Rewinder) readIndexBlob(h plumbing.Hash) ([]byte, error) {
	if h == emptyBlob {
		return []byte{}, nil
	}
	return r.repo.ReadBlob(h)
}

// restoreIndex makes the index HEAD's tree plus the recorded entries,
// unless it already is that.
func (r *Rewinder) restoreIndex(ctx context.Context, head plumbing.Hash, want []savedFile, data []byte) error {
	out, err := r.repo.RunGit(ctx, "diff-index", "--cached", "-z", "--no-renames", head.String())
	if err != nil {
		return fmt.Errorf("read the index: %w", err)
	}
	now, err := r.indexEntries(out, nil)
	if err != nil {
		return err
	}
	if sameEntries(now, want) {
		return nil
	}
	var info bytes.Buffer
	for _, f := range want {
		e, ok := f.entry()
		content, okData := f.content(data)
		if !ok || !okData || strings.ContainsAny(f.Path, "\x00\n") {
			return fmt.Errorf("%w: bad index entry for %s", undostore.ErrCorrupt, f.Path)
		}
		if content != nil {
			if _, err := r.repo.WriteBlob(content); err != nil {
				return err
			}
		}
		if !e.Exists() {
			fmt.Fprintf(&info, "0 %s\t%s\x00", plumbing.ZeroHash, f.Path)
			continue
		}
		fmt.Fprintf(&info, "%o %s\t%s\x00", uint32(e.Mode), e.Hash, f.Path)
	}
	if _, err := r.repo.RunGit(ctx, "read-tree", head.String()); err != nil {
		return fmt.Errorf("restore the index: %w", err)
	}
	if info.Len() > 0 {
		if _, err := r.repo.RunGitInput(ctx, info.Bytes(), "update-index", "-z", "--index-info"); err != nil {
			return fmt.Errorf("restore the index: %w", err)
		}
	}
	_, _ = r.repo.RunGit(ctx, "update-index", "-q", "--refresh")
	return nil
}

// sameEntries compares index entries by path, mode and hash.
func sameEntries(a, b []savedFile) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Path != b[i].Path || a[i].Mode != b[i].Mode || a[i].Hash != b[i].Hash {
			return false
		}
	}
	return true
}

// resetOverwrites returns the work-tree paths git status lists (the undo
// point's candidates), and those of them `git reset --hard p` changes that
// git cannot give back: the tracked paths with uncommitted changes, and
// the untracked ones p's tree has (reset overwrites them).
func (r *Rewinder) resetOverwrites(ctx context.Context, p Point) (candidates, overwrites []string, err error) {
	c, err := r.repo.Git.CommitObject(plumbing.NewHash(p.ID))
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", p.Short(), err)
	}
	target, err := c.Tree()
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", p.Short(), err)
	}
	status, err := r.repo.Status(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range status {
		if isProtected(e.Path) {
			continue
		}
		candidates = append(candidates, e.Path)
		if e.Untracked() && !lookup(target, e.Path).Exists() {
			continue
		}
		overwrites = append(overwrites, e.Path)
	}
	return candidates, overwrites, nil
}
