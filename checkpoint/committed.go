package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// MetadataBranch is the orphan branch that holds committed checkpoints.
const MetadataBranch = "entire/checkpoints/v1"

// MetadataRef is the local ref of MetadataBranch.
const MetadataRef = plumbing.ReferenceName("refs/heads/" + MetadataBranch)

// RemoteMetadataRef is origin's copy of MetadataBranch, read when the local
// branch is missing (a fresh clone), unless the store was given the
// checkpoint destination's copy (WithRemoteRef).
const RemoteMetadataRef = plumbing.ReferenceName("refs/remotes/origin/" + MetadataBranch)

// ErrNotFound is returned when a checkpoint does not exist.
var ErrNotFound = errors.New("checkpoint: not found")

// ErrCorrupt is returned (wrapped) when a checkpoint's metadata.json on the
// metadata branch cannot be decoded. The error names the checkpoint and
// the file.
var ErrCorrupt = errors.New("checkpoint: corrupt metadata")

// initMessage is the message of the metadata branch's root commit.
const initMessage = "Initialize metadata branch\n\nThis branch stores session metadata for the auto-commit strategy.\n"

// Store reads and writes committed checkpoints on the metadata branch. It
// never touches the work tree. Writes are compare-and-swapped, so several
// processes may write at once and none loses its checkpoint.
type Store struct {
	repo *gitrepo.Repo
	now  func() time.Time
	// redact, when set, redacts the metadata strings of every write
	// (redact.go).
	redact func(string) string
	// isPinned: every read sees pinned, the metadata branch's root tree
	// when Pinned was called (nil: there was no branch).
	isPinned bool
	pinned   *object.Tree
	// remoteRef is the checkpoint destination's copy of MetadataBranch
	// ("": RemoteMetadataRef).
	remoteRef plumbing.ReferenceName
	// layout is where new checkpoints go (layout.go).
	layout Layout
}

// WithRemoteRef returns a store over the same repository that reads ref
// (the checkpoint destination's remote-tracking ref of MetadataBranch)
// where the local branch is missing, instead of origin's.
func (s *Store) WithRemoteRef(ref plumbing.ReferenceName) *Store {
	c := *s
	c.remoteRef = ref
	return &c
}

// RemoteRef is the remote-tracking ref of MetadataBranch the store reads
// where the local branch is missing.
func (s *Store) RemoteRef() plumbing.ReferenceName {
	if s.remoteRef != "" {
		return s.remoteRef
	}
	return RemoteMetadataRef
}

// NewStore returns a store over repo. now is the clock for commit and
// metadata times (nil: time.Now).
func NewStore(repo *gitrepo.Repo, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{repo: repo, now: now}
}

// WithRedaction returns a store over the same repository whose writes pass
// the free-text strings of the metadata and of the commit message through
// redact (see SessionMetadata.Redacted); redact must be deterministic and
// idempotent. Without it, a store writes metadata as given.
func (s *Store) WithRedaction(redact func(string) string) *Store {
	c := *s
	c.redact = redact
	return &c
}

// EnsureBranch creates the metadata branch as an orphan commit with an
// empty tree unless it exists, locally or (then copied) at origin. It
// reports whether it created the branch.
func (s *Store) EnsureBranch(ctx context.Context) (bool, error) {
	created := false
	_, err := s.repo.UpdateRefFunc(ctx, MetadataRef, func(cur plumbing.Hash) (plumbing.Hash, error) {
		if !cur.IsZero() {
			created = false
			return cur, nil
		}
		if remote, err := s.repo.ReadRef(s.RemoteRef()); err == nil && !remote.IsZero() {
			created = false
			return remote, nil
		}
		created = true
		empty, err := s.repo.WriteTree(nil)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		return s.commit(empty, nil, initMessage)
	})
	if err != nil {
		return false, fmt.Errorf("create %s: %w", MetadataBranch, err)
	}
	return created, nil
}

// SessionWrite is one session's data for a committed checkpoint. The
// transcript, prompts, context and files must already be redacted; the
// metadata is redacted by a store made WithRedaction.
type SessionWrite struct {
	// Metadata is written as the slot's metadata.json; CheckpointID is set
	// by the store, and a zero CreatedAt becomes now.
	Metadata SessionMetadata
	// Transcript is the stored transcript (chunks and content hash); nil
	// writes none.
	Transcript *TranscriptState
	// Prompts is prompt.txt (prompts joined by "\n\n---\n\n"); empty: none.
	Prompts string
	// Context is context.md; empty: none.
	Context string
	// Files are further files by slash path relative to the slot
	// (summary.txt, tasks/<id>/conclusion.json, ...).
	Files map[string][]byte
	// Trees are existing trees grafted at slash paths relative to the slot
	// (notes/).
	Trees map[string]plumbing.Hash
	// CheckpointFiles are files by slash path relative to the checkpoint
	// directory <id[:2]>/<id[2:]>/, outside every slot: auto-commit task
	// checkpoints keep tasks/<tool_use_id>/... there (SPEC 3.7). Paths
	// must not start with a slot number or name the root metadata.json.
	CheckpointFiles map[string][]byte
}

// CommitInfo describes the metadata commit of a write.
type CommitInfo struct {
	// Subject is an optional custom subject placed in the body (a task
	// description).
	Subject string
	// EphemeralBranch is the shadow branch the session was condensed from.
	EphemeralBranch string
	// MetadataTask is the Entire-Metadata-Task value of a task checkpoint.
	MetadataTask string
	// Message replaces the whole default message ("Finalize transcript for
	// Checkpoint: <id>" and the like) when not empty; trailers are still
	// added.
	Message string
}

// WriteSession writes one session into checkpoint id: into the slot that
// already holds the same session ID (replacing everything in it), else into
// the next free slot. The root metadata.json is recomputed from all slots.
// It returns the slot index.
func (s *Store) WriteSession(ctx context.Context, id ID, w SessionWrite, info CommitInfo) (int, error) {
	if !id.Valid() {
		return 0, fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	if w.Metadata.SessionID == "" {
		return 0, errors.New("checkpoint: session ID is required")
	}
	if s.redact != nil {
		w.Metadata = w.Metadata.Redacted(s.redact)
		info.Subject, info.Message = s.redact(info.Subject), s.redact(info.Message)
	}
	w.Metadata.CheckpointID = id
	if w.Metadata.CreatedAt.IsZero() {
		w.Metadata.CreatedAt = s.now().UTC()
	}
	if w.Metadata.FilesTouched == nil {
		w.Metadata.FilesTouched = []string{}
	}
	slot := 0
	toRef := s.writesRef(id)
	ref, prefix := MetadataRef, id.Shard()+"/"
	if toRef {
		ref, prefix = id.RefName(), ""
	}
	_, err := s.repo.UpdateRefFunc(ctx, ref, func(tip plumbing.Hash) (plumbing.Hash, error) {
		if tip.IsZero() && !toRef {
			if remote, _ := s.repo.ReadRef(s.RemoteRef()); !remote.IsZero() {
				tip = remote
			}
		}
		var baseTree plumbing.Hash
		var parents []plumbing.Hash
		if !tip.IsZero() {
			c, err := s.repo.Git.CommitObject(tip)
			if err != nil {
				return plumbing.ZeroHash, fmt.Errorf("read %s: %w", ref.Short(), err)
			}
			baseTree, parents = c.TreeHash, []plumbing.Hash{tip}
		}
		dir, err := s.dirTree(baseTree, id, toRef)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		existing, err := s.readSessions(dir, id, prefix)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		slot = len(existing)
		for i, e := range existing {
			if e.meta != nil && e.meta.SessionID == w.Metadata.SessionID {
				slot = i
				break
			}
		}
		changes, sessions, err := s.sessionChanges(id, prefix, slot, w, existing)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		rootChange, err := s.rootChange(id, prefix, w.Metadata, sessions)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		tree, err := s.repo.BuildTree(baseTree, append(changes, rootChange))
		if err != nil {
			return plumbing.ZeroHash, err
		}
		return s.commit(tree, parents, metadataMessage(id, w.Metadata, info))
	})
	if err != nil {
		return 0, fmt.Errorf("write checkpoint %s: %w", id, err)
	}
	if toRef {
		if err := s.Queue(id); err != nil {
			return slot, err
		}
	}
	return slot, nil
}

// dirTree returns the tree of checkpoint id within baseTree, the tree of
// the metadata branch or (ref) of the checkpoint's own ref; nil when
// there is none yet.
func (s *Store) dirTree(baseTree plumbing.Hash, id ID, ref bool) (*object.Tree, error) {
	if baseTree.IsZero() {
		return nil, nil
	}
	root, err := s.repo.Git.TreeObject(baseTree)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: read tree: %w", id, err)
	}
	if ref {
		return root, nil
	}
	dir, err := root.Tree(id.Shard())
	if err != nil {
		return nil, nil
	}
	return dir, nil
}

// sessionChanges builds the tree changes of one slot and returns the slot
// list with the new metadata in place.
func (s *Store) sessionChanges(id ID, prefix string, slot int, w SessionWrite, existing []slotInfo) ([]gitrepo.Change, []slotInfo, error) {
	dir := prefix + strconv.Itoa(slot)
	changes := []gitrepo.Change{{Path: dir, Delete: true}}
	add := func(name string, data []byte) error {
		h, err := s.repo.WriteBlob(data)
		if err != nil {
			return err
		}
		changes = append(changes, gitrepo.Change{Path: dir + "/" + name, Mode: filemode.Regular, Hash: h})
		return nil
	}
	meta, err := json.MarshalIndent(w.Metadata, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("encode session metadata: %w", err)
	}
	if err := add(MetadataFile, append(meta, '\n')); err != nil {
		return nil, nil, err
	}
	tc, err := w.Transcript.TreeChanges(s.repo, dir)
	if err != nil {
		return nil, nil, err
	}
	changes = append(changes, tc...)
	if w.Prompts != "" {
		if err := add(PromptFile, []byte(w.Prompts)); err != nil {
			return nil, nil, err
		}
	}
	if w.Context != "" {
		if err := add(ContextFile, []byte(w.Context)); err != nil {
			return nil, nil, err
		}
	}
	for _, name := range sortedKeys(w.Files) {
		if err := add(name, w.Files[name]); err != nil {
			return nil, nil, err
		}
	}
	for _, name := range sortedKeys(w.Trees) {
		changes = append(changes, gitrepo.Change{Path: dir + "/" + name, Mode: filemode.Dir, Hash: w.Trees[name]})
	}
	for _, name := range sortedKeys(w.CheckpointFiles) {
		if name == MetadataFile || (name != "" && name[0] >= '0' && name[0] <= '9') {
			return nil, nil, fmt.Errorf("checkpoint file %q: %w", name, gitrepo.ErrBadPath)
		}
		h, err := s.repo.WriteBlob(w.CheckpointFiles[name])
		if err != nil {
			return nil, nil, err
		}
		changes = append(changes, gitrepo.Change{Path: prefix + name, Mode: filemode.Regular, Hash: h})
	}

	sessions := append([]slotInfo(nil), existing...)
	for len(sessions) <= slot {
		sessions = append(sessions, slotInfo{})
	}
	m := w.Metadata
	info := slotInfo{meta: &m, paths: SessionPaths{Metadata: "/" + dir + "/" + MetadataFile}}
	if w.Transcript != nil && len(w.Transcript.Chunks) > 0 {
		info.paths.Transcript = "/" + dir + "/" + TranscriptFile
		info.paths.ContentHash = "/" + dir + "/" + ContentHashFile
	}
	if w.Context != "" {
		info.paths.Context = "/" + dir + "/" + ContextFile
	}
	if w.Prompts != "" {
		info.paths.Prompt = "/" + dir + "/" + PromptFile
	}
	sessions[slot] = info
	return changes, sessions, nil
}

// rootChange writes the checkpoint summary for the given slots: counts and
// token usage summed, files touched united, the latest write's strategy,
// branch and version.
func (s *Store) rootChange(id ID, prefix string, latest SessionMetadata, sessions []slotInfo) (gitrepo.Change, error) {
	paths := make([]SessionPaths, len(sessions))
	metas := make([]*SessionMetadata, len(sessions))
	for i, e := range sessions {
		paths[i], metas[i] = e.paths, e.meta
	}
	root := Summarize(id, latest, paths, metas)
	if s.redact != nil {
		// Slots written before their metadata was redacted.
		root = root.redacted(s.redact)
	}
	data, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		return gitrepo.Change{}, fmt.Errorf("encode checkpoint metadata: %w", err)
	}
	h, err := s.repo.WriteBlob(append(data, '\n'))
	if err != nil {
		return gitrepo.Change{}, err
	}
	return gitrepo.Change{Path: prefix + MetadataFile, Mode: filemode.Regular, Hash: h}, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// metadataMessage formats the commit message of a metadata write (SPEC 3.7).
func metadataMessage(id ID, m SessionMetadata, info CommitInfo) string {
	var b strings.Builder
	if info.Message != "" {
		b.WriteString(strings.TrimRight(info.Message, "\n"))
	} else {
		b.WriteString("Checkpoint: " + id.String())
	}
	b.WriteString("\n\n")
	if info.Subject != "" {
		b.WriteString(info.Subject + "\n\n")
	}
	tr := Trailers{{TrailerSession, m.SessionID}, {TrailerStrategy, m.Strategy}}
	if m.Agent != "" {
		tr = append(tr, Trailer{TrailerAgent, string(m.Agent)})
	}
	if info.EphemeralBranch != "" {
		tr = append(tr, Trailer{TrailerEphemeralBranch, info.EphemeralBranch})
	}
	if info.MetadataTask != "" {
		tr = append(tr, Trailer{TrailerMetadataTask, info.MetadataTask})
	}
	b.WriteString(tr.String())
	return b.String()
}

// commit writes a commit by the repository's git user.
func (s *Store) commit(tree plumbing.Hash, parents []plumbing.Hash, msg string) (plumbing.Hash, error) {
	sig := s.repo.Author(s.now())
	return s.repo.WriteCommit(&object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree, ParentHashes: parents})
}

// UpdateFile rewrites one file of checkpoint id, rel (a slash path inside
// the checkpoint, such as "0/metadata.json"), with what edit returns for
// its current content, in one commit with message msg, where the
// checkpoint lives: its ref, else the metadata branch (created from the
// destination's copy when only that exists). It returns an error wrapping
// ErrNotFound when the checkpoint or the file does not exist. Concurrent
// writers are compare-and-swapped; edit may run more than once.
func (s *Store) UpdateFile(ctx context.Context, id ID, rel string, edit func(old []byte) ([]byte, error), msg string) error {
	if !id.Valid() {
		return fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	toRef := s.writesRef(id)
	ref, path := MetadataRef, id.Shard()+"/"+rel
	if toRef {
		ref, path = id.RefName(), rel
	}
	_, err := s.repo.UpdateRefFunc(ctx, ref, func(tip plumbing.Hash) (plumbing.Hash, error) {
		if tip.IsZero() && !toRef {
			if h, _ := s.repo.ReadRef(s.RemoteRef()); !h.IsZero() {
				tip = h
			}
		}
		if tip.IsZero() {
			return plumbing.ZeroHash, fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		c, err := s.repo.Git.CommitObject(tip)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read %s: %w", ref.Short(), err)
		}
		root, err := c.Tree()
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read %s tree: %w", ref.Short(), err)
		}
		f, err := root.File(path)
		if errors.Is(err, object.ErrFileNotFound) {
			return plumbing.ZeroHash, fmt.Errorf("%w: %s %s", ErrNotFound, id, rel)
		} else if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read %s of %s: %w", rel, id, err)
		}
		old, err := s.repo.ReadBlob(f.Hash)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		data, err := edit(old)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		blob, err := s.repo.WriteBlob(data)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		tree, err := s.repo.BuildTree(c.TreeHash, []gitrepo.Change{{Path: path, Mode: filemode.Regular, Hash: blob}})
		if err != nil {
			return plumbing.ZeroHash, err
		}
		return s.commit(tree, []plumbing.Hash{tip}, msg)
	})
	if err != nil {
		return err
	}
	if toRef {
		return s.Queue(id)
	}
	return nil
}
