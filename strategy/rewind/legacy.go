package rewind

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/strategy/rewind/undostore"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// LegacyUndoRefPrefix is where earlier versions of this CLI kept undo
// points: commits under refs/entire/undo/, which `git push --mirror` or a
// refs/entire/* refspec would publish with the raw transcripts they hold.
// The first undo-related use of a Rewinder moves them into its work tree's
// store and deletes the refs (and their reflogs).
const LegacyUndoRefPrefix = "refs/entire/undo/"

// The trailers of a legacy undo commit's message.
const (
	trailerUndoSession = "Entire-Session"
	trailerUndoStep    = "Entire-Undo-Step"
	trailerUndoNotes   = "Entire-Undo-Notes"
	// legacyTranscripts names the index of the transcripts tree.
	legacyTranscripts = "transcripts.json"
)

// migrateLegacy moves every legacy undo ref into store, then deletes it. A
// ref that cannot be read is deleted all the same, with a warning (it
// could not be undone to either, and it must not stay pushable).
func (r *Rewinder) migrateLegacy(ctx context.Context, store *undostore.Store) {
	refs, err := r.repo.ListRefs(LegacyUndoRefPrefix)
	if err != nil || len(refs) == 0 {
		return
	}
	names := make([]plumbing.ReferenceName, 0, len(refs))
	for n := range refs {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	moved := 0
	for _, ref := range names {
		name := strings.TrimPrefix(string(ref), LegacyUndoRefPrefix)
		if !undostore.ValidName(name) {
			name = "legacy-" + refs[ref].String()[:12]
		}
		err := r.migrateOne(ctx, store, name, refs[ref])
		if errors.Is(err, undostore.ErrExists) {
			err = nil
		}
		if err != nil {
			r.printf("Warning: could not move the old undo point %s out of refs/ (%v); deleting it\n", ref, err)
		} else {
			moved++
		}
		if err := r.repo.DeleteRef(ctx, ref, refs[ref]); err != nil {
			r.printf("Warning: could not delete %s: %v\n", ref, err)
		}
	}
	if moved > 0 {
		r.printf("Moved %d undo point(s) from %s (refs that a push could publish) to %s\n", moved, strings.TrimSuffix(LegacyUndoRefPrefix, "/"), store.Dir())
	}
}

// migrateOne converts one legacy undo commit: its first parent is HEAD,
// its second the index as a commit, its tree HEAD's plus the saved paths;
// a third parent holds the transcripts (or the notes, named by a trailer).
// Every path that differs from HEAD is saved with its content, the
// transcripts whole (those kept where this machine keeps their sessions:
// isTranscriptTarget).
func (r *Rewinder) migrateOne(ctx context.Context, store *undostore.Store, name string, h plumbing.Hash) error {
	c, err := r.repo.Git.CommitObject(h)
	if err != nil {
		return fmt.Errorf("read legacy undo commit %s: %w", h, err)
	}
	if len(c.ParentHashes) < 2 {
		return fmt.Errorf("not an undo point")
	}
	hc, err := r.repo.Git.CommitObject(c.ParentHashes[0])
	if err != nil {
		return fmt.Errorf("read legacy undo commit %s HEAD commit %s: %w", h, c.ParentHashes[0], err)
	}
	ic, err := r.repo.Git.CommitObject(c.ParentHashes[1])
	if err != nil {
		return fmt.Errorf("read legacy undo commit %s index commit %s: %w", h, c.ParentHashes[1], err)
	}
	subject, _, _ := strings.Cut(c.Message, "\n")
	tr := checkpoint.ParseTrailers(c.Message)
	pt := undoPoint{What: strings.TrimPrefix(subject, "entire: undo point before "), Head: hc.Hash.String()}
	pt.SessionID, _ = tr.Get(trailerUndoSession)
	pt.Step, _ = tr.Get(trailerUndoStep)
	var b dataBuilder
	paths := map[string]bool{}
	if err := diffTrees(r.repo, hc.TreeHash, c.TreeHash, paths); err != nil {
		return err
	}
	ut, err := c.Tree()
	if err != nil {
		return fmt.Errorf("read legacy undo commit %s tree %s: %w", h, c.TreeHash, err)
	}
	for _, p := range sortedSet(paths) {
		f := savedFile{Path: p}
		if e := lookup(ut, p); e.Exists() {
			data, err := r.repo.ReadBlob(e.Hash)
			if err != nil {
				return err
			}
			f.Mode, f.Hash, f.Data = e.Mode.String(), e.Hash.String(), b.add(data)
		}
		pt.Files = append(pt.Files, f)
	}
	if ic.TreeHash != hc.TreeHash {
		out, err := r.repo.RunGit(ctx, "diff-tree", "-r", "-z", "--no-renames", hc.TreeHash.String(), ic.TreeHash.String())
		if err != nil {
			return fmt.Errorf("read the index: %w", err)
		}
		if pt.Index, err = r.indexEntries(out, &b); err != nil {
			return err
		}
	}
	ts, err := r.legacyTranscripts(c)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if !r.isTranscriptTarget(t.SessionID, t.Path, t.data) {
			r.printf("Warning: the old undo point %s keeps the transcript of session %s for %s, which is not where this machine keeps that session; an undo to it leaves the transcript alone\n", name, t.SessionID, t.Path)
			continue
		}
		s := savedTranscript{SessionID: t.SessionID, Path: t.Path, Absent: t.Absent}
		if !t.Absent {
			s.Size, s.SHA256 = int64(len(t.data)), sha256Hex(t.data)
			s.Ops = []deltaOp{{Data: b.add(t.data)}}
		}
		pt.Transcripts = append(pt.Transcripts, s)
	}
	if pt.Notes, err = r.legacyNotes(c); err != nil {
		return err
	}
	return store.Write(name, pt, b.buf)
}

// isTranscriptTarget reports whether path is the file a rewind writes the
// transcript of session id to on this machine (transcriptTarget; the
// agent is the session state's, else the one data, the transcript, comes
// from). A legacy undo commit names its transcripts by absolute path, and
// refs under refs/entire/ may have come with a fetch: an undo must not
// write or delete files elsewhere.
func (r *Rewinder) isTranscriptTarget(id, path string, data []byte) bool {
	if session.ValidateID(id) != nil || path == "" {
		return false
	}
	st, _ := r.sessions.Load(id)
	agentType := ""
	if st == nil && data != nil {
		agentType = string(agent.ForTranscript("", data).Type())
	}
	want, _, err := r.transcriptTarget(id, st, agentType, data)
	return err == nil && want == path
}

// legacyTranscript is a transcript as a legacy undo commit keeps it.
type legacyTranscript struct {
	SessionID    string   `json:"session_id"`
	Path         string   `json:"path"`
	Absent       bool     `json:"absent,omitempty"`
	PrefixChunks []string `json:"prefix_chunks,omitempty"`
	data         []byte
}

// legacyTranscripts reads the transcripts a legacy undo commit keeps (its
// third parent), if any.
func (r *Rewinder) legacyTranscripts(c *object.Commit) ([]legacyTranscript, error) {
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
	f, err := t.File(legacyTranscripts)
	if err != nil {
		return nil, fmt.Errorf("read undo point transcripts: %w", err)
	}
	b, err := r.repo.ReadBlob(f.Hash)
	if err != nil {
		return nil, err
	}
	var ts []legacyTranscript
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

// legacyNotes reads the notes a legacy undo commit recorded: the commit a
// trailer names, one subtree per agent (nil when none).
func (r *Rewinder) legacyNotes(undo *object.Commit) (map[string]string, error) {
	v, ok := checkpoint.ParseTrailers(undo.Message).Get(trailerUndoNotes)
	if !ok || v == "" {
		return nil, nil
	}
	c, err := r.repo.Git.CommitObject(plumbing.NewHash(v))
	if err != nil {
		return nil, fmt.Errorf("read undo point notes: %w", err)
	}
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read undo point notes: %w", err)
	}
	out := map[string]string{}
	for _, e := range t.Entries {
		out[e.Name] = e.Hash.String()
	}
	return out, nil
}
