package rewind

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/strategy/rewind/undostore"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// KeepUndo is how many undo points are kept; older ones are deleted.
const KeepUndo = 10

// ErrNoUndo is returned (wrapped) when there is no undo point to use.
var ErrNoUndo = errors.New("rewind: no undo point")

// undoPoint is the manifest of an undo point; the bytes its spans name are
// the point's data in the store. It holds what a rewind is about to change,
// as it was:
//
//   - Files: every path the rewind considered whose state differed from
//     HEAD, with its mode and blob hash, and its content (Data) when the
//     rewind overwrites or deletes it; a path absent from Files was as in
//     HEAD.
//   - Index: the index entries that differed from HEAD, with the content of
//     staged blobs.
//   - Transcripts: each transcript the rewind writes back, as a delta
//     against what the rewind writes (only the cut tail, and the lines that
//     differ, are saved).
//   - Notes: the notes tree of each namespace the rewind changes ("" for
//     none), trees the notes branch's history keeps.
type undoPoint struct {
	What        string            `json:"what"`
	Head        string            `json:"head"`
	SessionID   string            `json:"session_id,omitempty"`
	Step        string            `json:"step,omitempty"`
	Files       []savedFile       `json:"files,omitempty"`
	Index       []savedFile       `json:"index,omitempty"`
	Transcripts []savedTranscript `json:"transcripts,omitempty"`
	Notes       map[string]string `json:"notes,omitempty"`
	// LogsOnly marks the point of a rewind that restored transcripts
	// (and notes) alone: its undo gives those back and leaves the work
	// tree and the index, which it never changed, as they are.
	LogsOnly bool `json:"logs_only,omitempty"`
}

// savedFile is a path's state in the work tree or the index. Mode "" means
// absent; Hash is the git blob (or, for a submodule entry, commit) hash;
// Data, when set, is the content.
type savedFile struct {
	Path string `json:"path"`
	Mode string `json:"mode,omitempty"`
	Hash string `json:"hash,omitempty"`
	Data *span  `json:"data,omitempty"`
}

// entry returns the file's state; ok is false for a malformed one.
func (f savedFile) entry() (entry, bool) {
	if f.Mode == "" {
		return entry{}, true
	}
	m, err := filemode.New(f.Mode)
	if err != nil || (!m.IsFile() && m != filemode.Submodule) || len(f.Hash) != 40 {
		return entry{}, false
	}
	return entry{Mode: m, Hash: plumbing.NewHash(f.Hash)}, true
}

// content returns the saved content from data, checked against Hash; nil
// and true when none is saved.
func (f savedFile) content(data []byte) ([]byte, bool) {
	if f.Data == nil {
		return nil, true
	}
	s := *f.Data
	if s.Off < 0 || s.Len < 0 || s.end() > int64(len(data)) {
		return nil, false
	}
	b := append([]byte{}, data[s.Off:s.end()]...)
	return b, plumbing.ComputeHash(plumbing.BlobObject, b).String() == f.Hash
}

// undoStore returns the work tree's undo point store, moving the legacy
// undo refs into it the first time.
func (r *Rewinder) undoStore(ctx context.Context) *undostore.Store {
	if r.undo == nil {
		r.undo = undostore.New(r.repo.GitDir)
		r.migrateLegacy(ctx, r.undo)
	}
	return r.undo
}

// pruneUndo deletes all but the newest KeepUndo undo points (best effort).
func (r *Rewinder) pruneUndo(ctx context.Context) {
	if _, err := r.undoStore(ctx).Prune(KeepUndo); err != nil {
		r.printf("Warning: could not delete an old undo point: %v\n", err)
	}
}

// UndoLocation says where the undo points of repo's work tree are kept,
// for messages to a person: relative to the work tree's root when it is
// inside it (".git/entire-undo"), else absolute.
func UndoLocation(repo *gitrepo.Repo) string {
	dir := undostore.New(repo.GitDir).Dir()
	if rel, err := filepath.Rel(repo.Root, dir); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return dir
}

// DeleteUndo deletes every undo point of the work tree (those older
// versions kept as refs included), the local and unredacted copies of
// files, transcripts and notes that Undo returns to, and returns how many
// it deleted. It stops at the first failure.
func (r *Rewinder) DeleteUndo(ctx context.Context) (int, error) {
	store := r.undoStore(ctx)
	names, err := store.Names()
	if err != nil {
		return 0, fmt.Errorf("list undo points: %w", err)
	}
	for i, n := range names {
		if err := store.Remove(n); err != nil {
			return i, fmt.Errorf("delete undo point %s: %w", n, err)
		}
	}
	return len(names), nil
}

// UndoPoints returns the names of the undo points, newest first.
func (r *Rewinder) UndoPoints(ctx context.Context) ([]string, error) {
	names, err := r.undoStore(ctx).Names()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[len(names)-1-i] = n
	}
	return out, nil
}

// Undo returns the work tree, the index, the saved transcripts and notes
// to an undo point: name is one of UndoPoints (a legacy
// "refs/entire/undo/<name>" is accepted too), "" for the newest. Every
// path goes back to its state when the point was taken: the paths the
// rewind changed from the point's own copy, the others from git (HEAD's
// tree or the blob the point names); a path whose content is in neither is
// left as it is, with a warning. Files created since are removed;
// gitignored files are left alone. It fails, changing nothing, when HEAD is
// no longer the commit the undo point was taken on, or when a transcript
// cannot be rebuilt.
func (r *Rewinder) Undo(ctx context.Context, name string) (*Result, error) {
	r.settle()
	store := r.undoStore(ctx)
	names, err := store.Names()
	if err != nil {
		return nil, fmt.Errorf("list undo points: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: nothing to undo", ErrNoUndo)
	}
	newest := names[len(names)-1]
	if name == "" {
		name = newest
	} else {
		name = strings.TrimPrefix(name, LegacyUndoRefPrefix)
		if !slices.Contains(names, name) {
			return nil, fmt.Errorf("%w: %s does not exist (have: %s)", ErrNoUndo, name, newest)
		}
	}
	var pt undoPoint
	data, err := store.Read(name, &pt)
	if err != nil {
		return nil, fmt.Errorf("read undo point: %w", err)
	}
	head, err := r.repo.Head()
	if err != nil {
		return nil, err
	}
	if head.String() != pt.Head {
		return nil, fmt.Errorf("HEAD moved since undo point %s (it was taken at %s, HEAD is %s): run `git reset --hard %s` first, or pick another undo point",
			name, short(pt.Head), short(head.String()), short(pt.Head))
	}
	hc, err := r.repo.Git.CommitObject(head)
	if err != nil {
		return nil, fmt.Errorf("undo point %s: read HEAD commit %s: %w", name, head, err)
	}
	ht, err := hc.Tree()
	if err != nil {
		return nil, fmt.Errorf("undo point %s: read HEAD commit %s tree %s: %w", name, head, hc.TreeHash, err)
	}
	saved := map[string]savedFile{}
	for _, f := range pt.Files {
		if err := safePath(r.repo.Root, f.Path, false); err != nil {
			return nil, fmt.Errorf("undo point %s: %w", name, err)
		}
		saved[f.Path] = f
	}
	ts, err := r.rebuildTranscripts(name, pt.Transcripts, data)
	if err != nil {
		return nil, err
	}
	notesBack, err := r.undoNotes(name, pt.Notes)
	if err != nil {
		return nil, err
	}
	var changes []FileChange
	var kept, paths []string
	if !pt.LogsOnly {
		if changes, kept, paths, err = r.undoChanges(ctx, name, saved, data, ht); err != nil {
			return nil, err
		}
	}
	res := &Result{UndoPoint: name}
	err = applyChanges(r.repo, changes, func(fc FileChange) {
		res.Changes = append(res.Changes, fc)
		if fc.Kind == Deleted {
			r.printf("  Deleted: %s\n", fc.Path)
		} else {
			r.printf("  Restored: %s\n", fc.Path)
		}
	})
	if err != nil {
		return res, err
	}
	for _, p := range kept {
		r.printf("  Kept (changed since the rewind, and the undo point has no copy): %s\n", p)
	}
	if !pt.LogsOnly {
		if err := r.restoreIndex(ctx, head, pt.Index, data); err != nil {
			return res, err
		}
	}
	for _, t := range ts {
		if t.data == nil {
			if err := os.Remove(t.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return res, fmt.Errorf("remove transcript %s: %w", t.Path, err)
			}
			continue
		}
		res.Transcripts = append(res.Transcripts, t)
	}
	if err := r.writeTranscripts(res.Transcripts); err != nil {
		return res, err
	}
	if err := r.restoreNotes(ctx, notesBack); err != nil {
		return res, err
	}
	r.recordUndoStep(ctx, pt, hc.TreeHash, paths)
	return res, nil
}

// undoChanges returns the changes that bring the work tree back to an
// undo point: each saved path to its saved state, each other path that git
// status lists to HEAD's. kept are paths whose content neither the point
// nor git holds; paths are all the paths looked at, sorted.
func (r *Rewinder) undoChanges(ctx context.Context, name string, saved map[string]savedFile, data []byte, ht *object.Tree) (changes []FileChange, kept, paths []string, err error) {
	status, err := r.repo.Status(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	cand := map[string]bool{}
	for p := range saved {
		cand[p] = true
	}
	listed := map[string]bool{}
	for _, e := range status {
		if !isProtected(e.Path) {
			cand[e.Path], listed[e.Path] = true, true
		}
	}
	paths = sortedSet(cand)
	disk := newDiskReader(r.repo.Root)
	for _, p := range paths {
		want, content := lookup(ht, p), []byte(nil)
		if f, ok := saved[p]; ok {
			var okEntry, okData bool
			want, okEntry = f.entry()
			content, okData = f.content(data)
			if !okEntry || !okData || want.Mode == filemode.Submodule {
				return nil, nil, nil, fmt.Errorf("%w: undo point %s: bad entry for %s", undostore.ErrCorrupt, name, p)
			}
		}
		fc, _, ok, err := r.change(disk, p, want, ht, listed)
		if err != nil {
			return nil, nil, nil, err
		}
		if !ok {
			continue
		}
		if fc.Kind != Deleted {
			if content != nil {
				fc.content, fc.saved = content, true
			} else if !r.repo.HasObject(want.Hash) {
				kept = append(kept, p)
				continue
			}
		}
		changes = append(changes, fc)
	}
	return changes, kept, paths, nil
}

// undoNotes returns the notes trees an undo point recorded, checking that
// they still exist (the notes branch's history keeps them).
func (r *Rewinder) undoNotes(name string, notes map[string]string) (map[string]plumbing.Hash, error) {
	if len(notes) == 0 {
		return nil, nil
	}
	out := map[string]plumbing.Hash{}
	for agentName, tree := range notes {
		h := plumbing.ZeroHash
		if tree != "" {
			h = plumbing.NewHash(tree)
			if h.IsZero() || len(tree) != 40 {
				return nil, fmt.Errorf("%w: undo point %s: bad notes tree %q", undostore.ErrCorrupt, name, tree)
			}
			if _, err := r.repo.Git.TreeObject(h); err != nil && h != gitrepo.EmptyTree {
				return nil, fmt.Errorf("undo point %s: the %s notes it recorded are gone from the notes branch's history: %w", name, agentName, err)
			}
		}
		out[agentName] = h
	}
	return out, nil
}

// recordUndoStep records the state an undo returned to as a new step of
// the rewound session, with the metadata of its newest step before the
// rewind, so that the shadow branch follows the work tree (best effort).
func (r *Rewinder) recordUndoStep(ctx context.Context, pt undoPoint, headTree plumbing.Hash, paths []string) {
	if pt.SessionID == "" || pt.Step == "" {
		return
	}
	st, err := r.sessions.Load(pt.SessionID)
	if err != nil || st.BaseCommit != pt.Head {
		return
	}
	sc, err := r.repo.Git.CommitObject(plumbing.NewHash(pt.Step))
	if err != nil {
		return
	}
	meta, err := sc.Tree()
	if err != nil {
		return
	}
	subject, _, _ := strings.Cut(sc.Message, "\n")
	if err := r.recordStep(ctx, st, headTree, paths, meta, firstLine("Undo rewind: "+subject, 72), "undo"); err != nil {
		r.printf("Warning: could not record the undo on the shadow branch: %v\n", err)
	}
}
