package rewind

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// UndoRefPrefix is where undo points live: local refs, never pushed.
const UndoRefPrefix = "refs/entire/undo/"

// KeepUndo is how many undo points are kept; older ones are deleted.
const KeepUndo = 10

// transcriptsFile names the index of saved transcripts in an undo point's
// transcript tree.
const transcriptsFile = "transcripts.json"

// ErrNoUndo is returned (wrapped) when there is no undo point to use.
var ErrNoUndo = errors.New("rewind: no undo point")

// recordUndo stores the current state of the given work-tree paths (plus
// every dirty one: they all are in paths), the index and the transcripts
// about to be overwritten as a commit under refs/entire/undo/, and prunes
// old undo points. Its first parent is HEAD, its second the index (as a
// commit of `git write-tree`), its third, when there are transcripts, a
// tree of them.
func (r *Rewinder) recordUndo(ctx context.Context, head, headTree plumbing.Hash, paths []string, ts []savedTranscript, info undoInfo) (string, error) {
	what := info.what
	changes, err := r.repo.WorktreeChanges(paths)
	if err != nil {
		return "", err
	}
	tree, err := r.repo.BuildTree(headTree, changes)
	if err != nil {
		return "", err
	}
	out, err := r.repo.RunGit(ctx, "write-tree")
	if err != nil {
		return "", fmt.Errorf("read the index: %w", err)
	}
	indexTree := plumbing.NewHash(strings.TrimSpace(string(out)))
	sig := r.repo.Author(r.now())
	indexCommit, err := r.repo.WriteCommit(&object.Commit{Author: sig, Committer: sig, TreeHash: indexTree,
		ParentHashes: []plumbing.Hash{head}, Message: "index before " + what + "\n"})
	if err != nil {
		return "", err
	}
	parents := []plumbing.Hash{head, indexCommit}
	if len(ts) > 0 {
		var entries []object.TreeEntry
		for i, t := range ts {
			h, err := r.repo.WriteBlob(t.data)
			if err != nil {
				return "", err
			}
			entries = append(entries, object.TreeEntry{Name: strconv.Itoa(i), Mode: filemode.Regular, Hash: h})
			for j, c := range t.prefix { // keeps the chunks reachable
				entries = append(entries, object.TreeEntry{Name: fmt.Sprintf("%d.prefix.%d", i, j), Mode: filemode.Regular, Hash: c})
			}
		}
		idx, _ := json.MarshalIndent(ts, "", "  ")
		h, err := r.repo.WriteBlob(idx)
		if err != nil {
			return "", err
		}
		entries = append(entries, object.TreeEntry{Name: transcriptsFile, Mode: filemode.Regular, Hash: h})
		sort.Sort(object.TreeEntrySorter(entries))
		tt, err := r.repo.WriteTree(entries)
		if err != nil {
			return "", err
		}
		tc, err := r.repo.WriteCommit(&object.Commit{Author: sig, Committer: sig, TreeHash: tt, Message: "transcripts before " + what + "\n"})
		if err != nil {
			return "", err
		}
		parents = append(parents, tc)
	}
	if !info.notes.IsZero() {
		parents = append(parents, info.notes) // keeps the notes reachable
	}
	c, err := r.repo.WriteCommit(&object.Commit{Author: sig, Committer: sig, TreeHash: tree, ParentHashes: parents,
		Message: info.message()})
	if err != nil {
		return "", err
	}
	name := UndoRefPrefix + r.now().UTC().Format("20060102T150405.000000000Z")
	if err := r.repo.UpdateRef(plumbing.ReferenceName(name), c, plumbing.ZeroHash); err != nil {
		return "", err
	}
	r.pruneUndo(ctx)
	return name, nil
}

// undoInfo describes an undo point: what it precedes and, for a rewind of
// a temporary point, the session and its newest step before the rewind
// (whose metadata an undo records again on the shadow branch).
type undoInfo struct {
	what      string
	sessionID string
	step      plumbing.Hash
	// notes is the commit of the notes before the rewind (see
	// notesBefore), ZeroHash when the rewind changes no notes.
	notes plumbing.Hash
}

const (
	trailerUndoSession = "Entire-Session"
	trailerUndoStep    = "Entire-Undo-Step"
)

func (u undoInfo) message() string {
	msg := "entire: undo point before " + u.what + "\n"
	var tr checkpoint.Trailers
	if u.sessionID != "" {
		tr = append(tr, checkpoint.Trailer{Key: trailerUndoSession, Value: u.sessionID}, checkpoint.Trailer{Key: trailerUndoStep, Value: u.step.String()})
	}
	if !u.notes.IsZero() {
		tr = append(tr, checkpoint.Trailer{Key: trailerUndoNotes, Value: u.notes.String()})
	}
	if len(tr) > 0 {
		msg += "\n" + tr.String()
	}
	return msg
}

// undoRefs returns the undo point refs, oldest first.
func (r *Rewinder) undoRefs() ([]plumbing.ReferenceName, map[plumbing.ReferenceName]plumbing.Hash, error) {
	refs, err := r.repo.ListRefs(UndoRefPrefix)
	if err != nil {
		return nil, nil, err
	}
	names := make([]plumbing.ReferenceName, 0, len(refs))
	for n := range refs {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names, refs, nil
}

// pruneUndo deletes all but the newest KeepUndo undo points (best effort).
func (r *Rewinder) pruneUndo(ctx context.Context) {
	names, refs, err := r.undoRefs()
	if err != nil {
		return
	}
	for i := 0; i < len(names)-KeepUndo; i++ {
		if err := r.repo.DeleteRef(ctx, names[i], refs[names[i]]); err != nil {
			r.printf("Warning: could not delete old undo point %s: %v\n", names[i], err)
		}
	}
}

// UndoLocation says where the undo points are kept, for messages to a
// person ("refs/entire/undo/").
func UndoLocation() string { return UndoRefPrefix }

// DeleteUndo deletes every undo point, the local and unredacted copies of
// work trees, transcripts and notes that Undo returns to, and returns how
// many it deleted. It stops at the first failure. The objects they kept are
// then unreachable: git's next garbage collection removes them.
func (r *Rewinder) DeleteUndo(ctx context.Context) (int, error) {
	names, refs, err := r.undoRefs()
	if err != nil {
		return 0, fmt.Errorf("list undo points: %w", err)
	}
	for i, n := range names {
		if err := r.repo.DeleteRef(ctx, n, refs[n]); err != nil {
			return i, fmt.Errorf("delete undo point %s: %w", n, err)
		}
	}
	return len(names), nil
}

// UndoPoints returns the undo point refs, newest first.
func (r *Rewinder) UndoPoints() ([]string, error) {
	names, _, err := r.undoRefs()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[len(names)-1-i] = string(n)
	}
	return out, nil
}

// Undo returns the work tree, the index and the saved transcripts to an
// undo point: name is a ref under refs/entire/undo/ (full or the part
// after the prefix), "" for the newest. Files created since are removed;
// gitignored files are left alone. It fails, changing nothing, when HEAD
// is no longer the commit the undo point was taken on.
func (r *Rewinder) Undo(ctx context.Context, name string) (*Result, error) {
	r.settle()
	names, refs, err := r.undoRefs()
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: nothing to undo", ErrNoUndo)
	}
	ref := names[len(names)-1]
	if name != "" {
		ref = plumbing.ReferenceName(name)
		if !strings.HasPrefix(name, UndoRefPrefix) {
			ref = plumbing.ReferenceName(UndoRefPrefix + name)
		}
		if _, ok := refs[ref]; !ok {
			return nil, fmt.Errorf("%w: %s does not exist (have: %s)", ErrNoUndo, name, strings.TrimPrefix(string(names[len(names)-1]), UndoRefPrefix))
		}
	}
	c, err := r.repo.Git.CommitObject(refs[ref])
	if err != nil || len(c.ParentHashes) < 2 {
		return nil, fmt.Errorf("%w: %s is not an undo point", ErrNoUndo, ref)
	}
	head, err := r.repo.Head()
	if err != nil {
		return nil, err
	}
	if head != c.ParentHashes[0] {
		return nil, fmt.Errorf("HEAD moved since undo point %s (it was taken at %s, HEAD is %s): run `git reset --hard %s` first, or pick another undo point",
			ref, short(c.ParentHashes[0].String()), short(head.String()), short(c.ParentHashes[0].String()))
	}
	hc, err := r.repo.Git.CommitObject(head)
	if err != nil {
		return nil, err
	}
	ic, err := r.repo.Git.CommitObject(c.ParentHashes[1])
	if err != nil {
		return nil, fmt.Errorf("read undo point index: %w", err)
	}
	ts, err := r.savedTranscripts(c)
	if err != nil {
		return nil, err
	}
	status, err := r.repo.Status(ctx)
	if err != nil {
		return nil, err
	}
	cand := map[string]bool{}
	if err := diffTrees(r.repo, hc.TreeHash, c.TreeHash, "", cand); err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	staged := false
	for _, e := range status {
		if isProtected(e.Path) {
			continue
		}
		cand[e.Path], listed[e.Path] = true, true
		if !e.Untracked() && e.X != ' ' {
			staged = true
		}
	}
	target, err := c.Tree()
	if err != nil {
		return nil, err
	}
	ht, err := hc.Tree()
	if err != nil {
		return nil, err
	}
	var changes []FileChange
	for _, p := range sortedSet(cand) {
		fc, _, ok, err := r.change(p, lookup(target, p), ht, listed)
		if err != nil {
			return nil, err
		}
		if ok {
			changes = append(changes, fc)
		}
	}
	res := &Result{UndoRef: string(ref)}
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
	if staged || ic.TreeHash != hc.TreeHash {
		if _, err := r.repo.RunGit(ctx, "read-tree", ic.TreeHash.String()); err != nil {
			return res, fmt.Errorf("restore the index: %w", err)
		}
		_, _ = r.repo.RunGit(ctx, "update-index", "-q", "--refresh")
	}
	for _, t := range ts {
		if t.Absent {
			if err := os.Remove(t.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return res, fmt.Errorf("remove transcript %s: %w", t.Path, err)
			}
			continue
		}
		res.Transcripts = append(res.Transcripts, Transcript{SessionID: t.SessionID, Path: t.Path, data: t.data})
	}
	if err := r.writeTranscripts(res.Transcripts); err != nil {
		return res, err
	}
	notesBack, err := r.undoNotes(c)
	if err != nil {
		return res, err
	}
	if err := r.restoreNotes(ctx, notesBack); err != nil {
		return res, err
	}
	r.recordUndoStep(ctx, c, hc.TreeHash, sortedSet(cand))
	return res, nil
}

// recordUndoStep records the state an undo returned to as a new step of
// the rewound session, with the metadata of its newest step before the
// rewind, so that the shadow branch follows the work tree (best effort).
func (r *Rewinder) recordUndoStep(ctx context.Context, undo *object.Commit, headTree plumbing.Hash, paths []string) {
	tr := checkpoint.ParseTrailers(undo.Message)
	sid, _ := tr.Get(trailerUndoSession)
	step, _ := tr.Get(trailerUndoStep)
	if sid == "" || step == "" {
		return
	}
	st, err := r.sessions.Load(sid)
	if err != nil || st.BaseCommit != undo.ParentHashes[0].String() {
		return
	}
	sc, err := r.repo.Git.CommitObject(plumbing.NewHash(step))
	if err != nil {
		return
	}
	meta, err := sc.Tree()
	if err != nil {
		return
	}
	subject, _, _ := strings.Cut(sc.Message, "\n")
	if err := r.recordStep(ctx, st, headTree, paths, meta, firstLine("Undo rewind: "+subject, 72)); err != nil {
		r.printf("Warning: could not record the undo on the shadow branch: %v\n", err)
	}
}

// savedTranscripts reads the transcripts kept by an undo point (its third
// parent), if any.
func (r *Rewinder) savedTranscripts(c *object.Commit) ([]savedTranscript, error) {
	if len(c.ParentHashes) < 3 {
		return nil, nil
	}
	if v, _ := checkpoint.ParseTrailers(c.Message).Get(trailerUndoNotes); v == c.ParentHashes[2].String() {
		return nil, nil // no transcripts: the third parent holds the notes
	}
	tc, err := r.repo.Git.CommitObject(c.ParentHashes[2])
	if err != nil {
		return nil, fmt.Errorf("read undo point transcripts: %w", err)
	}
	t, err := tc.Tree()
	if err != nil {
		return nil, fmt.Errorf("read undo point transcripts: %w", err)
	}
	f, err := t.File(transcriptsFile)
	if err != nil {
		return nil, fmt.Errorf("read undo point transcripts: %w", err)
	}
	b, err := r.repo.ReadBlob(f.Hash)
	if err != nil {
		return nil, err
	}
	var ts []savedTranscript
	if err := json.Unmarshal(b, &ts); err != nil {
		return nil, fmt.Errorf("corrupt undo point transcripts: %w", err)
	}
	for i := range ts {
		if ts[i].Absent {
			continue
		}
		e, err := t.File(strconv.Itoa(i))
		if err != nil {
			return nil, fmt.Errorf("undo point transcript %d: %w", i, err)
		}
		if ts[i].data, err = r.repo.ReadBlob(e.Hash); err != nil {
			return nil, err
		}
		if len(ts[i].PrefixChunks) > 0 {
			var hs []plumbing.Hash
			for _, c := range ts[i].PrefixChunks {
				hs = append(hs, plumbing.NewHash(c))
			}
			prefix, err := checkpoint.ReadTranscript(r.repo, checkpoint.Stored{Chunks: hs}, "")
			if err != nil {
				return nil, fmt.Errorf("undo point transcript %d: %w", i, err)
			}
			ts[i].data = append(prefix, ts[i].data...)
		}
	}
	return ts, nil
}
