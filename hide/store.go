package hide

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// BranchRef is the branch that holds the persisted hides.
const BranchRef plumbing.ReferenceName = "refs/heads/entire/hides/v1"

// File names inside a hide's directory.
const (
	metaFile    = "meta.json"
	contentFile = "content"
)

// contentChunk is the size of the blobs a hide's content is stored in
// (readers join them in order, whatever their size).
const contentChunk = 8 << 20

// MetaSessionID is the Put metadata key that names the session a hide
// belongs to; Put moves it into StoreEntry.SessionID.
const MetaSessionID = "session_id"

// StoreEntry is the metadata of a persisted hide, stored as <id>/meta.json.
type StoreEntry struct {
	// ID is the unique hide identifier.
	ID string `json:"id"`
	// Kind is the hide type label (e.g. "github.pr_review_thread"); the ID is
	// made from it.
	Kind string `json:"kind"`
	// Source is the origin: a tool name, a webhook path, or "cli".
	Source string `json:"source"`
	// SizeBytes is the byte count of the stored content.
	SizeBytes int64 `json:"size_bytes"`
	// CreatedAt is the Unix time in seconds when the hide was written.
	CreatedAt int64 `json:"created_at"`
	// SessionID is the agent session that made the hide ("" for none).
	SessionID string `json:"session_id,omitempty"`
	// Metadata holds free key-value labels.
	Metadata map[string]string `json:"metadata,omitempty"`
}

// Store persists hides as git objects on BranchRef, one directory per hide:
// <id>/meta.json and <id>/content (content, content.001, ... when the
// content is larger than the chunk size, 50 MB by default). Every change is
// one commit, made by compare-and-swap on the branch and retried when
// another writer moved it, so concurrent writers lose nothing. Pages of
// large hides are served from an inflated copy cached under the git
// directory (<common dir>/entire/hide-cache), so a page costs a page.
//
// A Store is safe for concurrent use.
type Store struct {
	repo      *gitrepo.Repo
	redact    func(string) string
	now       func() time.Time
	chunkSize int
	cacheDir  string
}

// Option configures a Store.
type Option func(*Store)

// WithRedact sets the function applied to the content, source, kind and
// metadata values of a hide before they become git objects. Nil means
// identity.
func WithRedact(f func(string) string) Option { return func(s *Store) { s.redact = f } }

// WithClock sets the clock used for IDs, timestamps and commits. Nil means
// time.Now.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithChunkSize sets the size above which content is split into chunk
// blobs. Zero or less means agent.MaxChunkSize (50 MB).
func WithChunkSize(n int) Option { return func(s *Store) { s.chunkSize = n } }

// NewStore returns a Store over repo. It does no I/O.
func NewStore(repo *gitrepo.Repo, opts ...Option) *Store {
	s := &Store{repo: repo}
	for _, o := range opts {
		o(s)
	}
	if s.redact == nil {
		s.redact = func(v string) string { return v }
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.chunkSize <= 0 {
		s.chunkSize = contentChunk
	}
	s.cacheDir = cacheDirOf(repo)
	return s
}

// Put stores content under a new ID made from kind (source when kind is
// empty) and returns its entry. The ID is checked against the hides on the
// branch inside the compare-and-swap, so it never replaces another hide.
// meta[MetaSessionID], when present, becomes the entry's SessionID instead
// of a metadata label.
func (s *Store) Put(kind, source string, content []byte, meta map[string]string) (StoreEntry, error) {
	entry, _, err := s.PutText(kind, source, string(content), meta, 0)
	return entry, err
}

// PutText is Put of content given as a string, which it neither copies nor
// reads back: it returns page 1 of the stored (redacted) content, as Cut
// with pageSizeBytes gives it, with the entry.
func (s *Store) PutText(kind, source, content string, meta map[string]string, pageSizeBytes int) (StoreEntry, Cut, error) {
	ctx := context.Background()
	body := s.redact(content)
	entry := StoreEntry{Kind: s.redact(kind), Source: s.redact(source), SizeBytes: int64(len(body))}
	for k, v := range meta {
		if k == MetaSessionID {
			entry.SessionID = v
			continue
		}
		if entry.Metadata == nil {
			entry.Metadata = map[string]string{}
		}
		entry.Metadata[k] = s.redact(v)
	}
	chunkHashes, err := s.writeChunks(splitString(body, s.chunkSize))
	if err != nil {
		return StoreEntry{}, Cut{}, fmt.Errorf("hide/store.Put: %w", err)
	}
	idBase := entry.Kind
	if idBase == "" {
		idBase = entry.Source
	}
	now := s.now()
	entry.CreatedAt = now.Unix()
	_, err = s.repo.UpdateRefFunc(ctx, BranchRef, func(cur plumbing.Hash) (plumbing.Hash, error) {
		root, err := s.repo.CommitTree(cur)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		names := entryNames(root)
		entry.ID = uniqueID(idBase, now, func(id string) bool { return names[id] })
		mb, err := json.MarshalIndent(entry, "", "  ")
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("encode meta: %w", err)
		}
		mh, err := s.repo.WriteBlob(append(mb, '\n'))
		if err != nil {
			return plumbing.ZeroHash, err
		}
		changes := []gitrepo.Change{{Path: entry.ID + "/" + metaFile, Mode: filemode.Regular, Hash: mh}}
		for i, h := range chunkHashes {
			changes = append(changes, gitrepo.Change{Path: entry.ID + "/" + agent.ChunkFileName(contentFile, i), Mode: filemode.Regular, Hash: h})
		}
		return s.commit(cur, root, changes, "hide: store "+entry.ID)
	})
	if err != nil {
		return StoreEntry{}, Cut{}, fmt.Errorf("hide/store.Put: %w", err)
	}
	first, err := cutOf(entry.ID, entry.Source, body, 1, pageSizeBytes)
	if err != nil {
		return StoreEntry{}, Cut{}, fmt.Errorf("hide/store.Put: %w", err)
	}
	return entry, first, nil
}

// writeChunks stores the chunks of a hide's content as blobs and returns
// their hashes in order.
func (s *Store) writeChunks(chunks []string) ([]plumbing.Hash, error) {
	hashes := make([]plumbing.Hash, 0, len(chunks))
	for _, c := range chunks {
		h, err := s.repo.WriteBlobString(c)
		if err != nil {
			return nil, err
		}
		hashes = append(hashes, h)
	}
	return hashes, nil
}

// Get returns the entry and the whole content of hide id. It returns an
// error wrapping ErrInvalidID for an ID that cannot name a hide, and
// ErrNotFound when the hide, its meta.json or its content is missing.
func (s *Store) Get(id string) (StoreEntry, []byte, error) {
	h, err := s.lookup(id)
	if err != nil {
		return StoreEntry{}, nil, fmt.Errorf("hide/store.Get %s: %w", id, err)
	}
	data := make([]byte, 0, h.size)
	for _, c := range h.chunks {
		b, err := s.repo.ReadBlob(c.hash)
		if err != nil {
			return StoreEntry{}, nil, fmt.Errorf("hide/store.Get %s: content: %w", id, err)
		}
		data = append(data, b...)
	}
	return h.entry, data, nil
}

// Delete removes hide id from the branch (older commits keep it). Deleting
// a hide that does not exist succeeds; an invalid ID is an error wrapping
// ErrInvalidID.
func (s *Store) Delete(id string) error {
	if err := ValidateID(id); err != nil {
		return fmt.Errorf("hide/store.Delete: %w", err)
	}
	var removed plumbing.Hash
	_, err := s.repo.UpdateRefFunc(context.Background(), BranchRef, func(cur plumbing.Hash) (plumbing.Hash, error) {
		root, err := s.repo.CommitTree(cur)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		e, ok := findEntry(root, id)
		if !ok {
			return cur, nil
		}
		removed = e.Hash
		return s.commit(cur, root, []gitrepo.Change{{Path: id, Delete: true}}, "hide: delete "+id)
	})
	if err != nil {
		return fmt.Errorf("hide/store.Delete %s: %w", id, err)
	}
	if !removed.IsZero() {
		s.dropCache(removed)
	}
	return nil
}

// List returns every hide's entry, newest first (CreatedAt descending, then
// ID). Directories whose meta.json is missing or malformed are skipped. An
// empty or missing branch gives nil.
func (s *Store) List() ([]StoreEntry, error) {
	cur, err := s.repo.ReadRef(BranchRef)
	if err != nil {
		return nil, fmt.Errorf("hide/store.List: %w", err)
	}
	root, err := s.repo.CommitTree(cur)
	if err != nil || root == nil {
		return nil, err
	}
	var out []StoreEntry
	for _, e := range root.Entries {
		if e.Mode != filemode.Dir {
			continue
		}
		sub, err := s.repo.Git.TreeObject(e.Hash)
		if err != nil {
			continue
		}
		entry, err := s.readMeta(sub)
		if err != nil || entry.ID != e.Name {
			continue
		}
		out = append(out, entry)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].CreatedAt != out[j].CreatedAt {
			return out[i].CreatedAt > out[j].CreatedAt
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// SessionHides returns the IDs of the hides made by session sessionID,
// oldest first. An empty sessionID gives nil.
func (s *Store) SessionHides(sessionID string) ([]string, error) {
	if sessionID == "" {
		return nil, nil
	}
	all, err := s.List()
	if err != nil {
		return nil, err
	}
	var ids []string
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].SessionID == sessionID {
			ids = append(ids, all[i].ID)
		}
	}
	return ids, nil
}

// ResolveID returns id when a hide has that ID. Otherwise, when session
// sessionID made exactly one hide, it returns that hide's ID, forgiving a
// missing or mistyped ID from a model; hides of other sessions are never
// reached this way. It returns ("", false, nil) when neither applies, and an
// error only when the branch cannot be read.
func (s *Store) ResolveID(sessionID, id string) (string, bool, error) {
	if ValidateID(id) == nil {
		if _, err := s.lookup(id); err == nil {
			return id, true, nil
		} else if !errors.Is(err, ErrNotFound) {
			return "", false, err
		}
	}
	ids, err := s.SessionHides(sessionID)
	if err != nil {
		return "", false, err
	}
	if len(ids) == 1 {
		return ids[0], true, nil
	}
	return "", false, nil
}

// HideTree returns the hash of hide id's directory tree, for callers that
// graft it into another tree (a checkpoint keeping its hides reachable).
func (s *Store) HideTree(id string) (plumbing.Hash, error) {
	h, err := s.lookup(id)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("hide/store.HideTree %s: %w", id, err)
	}
	return h.tree, nil
}

// LoadIntoBuffer reads hide id whole and returns a new HideBuffer holding it
// under its persisted ID, Source and CreatedAt. pageSize <= 0 means
// DefaultPageSize. Errors wrap those of Get (ErrNotFound, ErrInvalidID).
func (s *Store) LoadIntoBuffer(id string, pageSize int) (*HideBuffer, error) {
	entry, content, err := s.Get(id)
	if err != nil {
		return nil, fmt.Errorf("hide/store.LoadIntoBuffer: %w", err)
	}
	b := NewHideBuffer(pageSize)
	b.insertLocked(&Hide{ID: entry.ID, Source: entry.Source, Content: string(content), CreatedAt: time.Unix(entry.CreatedAt, 0)})
	return b, nil
}

// commit writes the tree root+changes and a commit on top of parent.
func (s *Store) commit(parent plumbing.Hash, root *object.Tree, changes []gitrepo.Change, msg string) (plumbing.Hash, error) {
	base := plumbing.ZeroHash
	if root != nil {
		base = root.Hash
	}
	tree, err := s.repo.BuildTree(base, changes)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	sig := s.repo.Author(s.now())
	c := &object.Commit{Author: sig, Committer: sig, Message: msg + "\n", TreeHash: tree}
	if !parent.IsZero() {
		c.ParentHashes = []plumbing.Hash{parent}
	}
	return s.repo.WriteCommit(c)
}

// entryNames returns the set of names in root (nil root: none).
func entryNames(root *object.Tree) map[string]bool {
	names := map[string]bool{}
	if root != nil {
		for _, e := range root.Entries {
			names[e.Name] = true
		}
	}
	return names
}

func findEntry(t *object.Tree, name string) (object.TreeEntry, bool) {
	if t == nil {
		return object.TreeEntry{}, false
	}
	for _, e := range t.Entries {
		if e.Name == name {
			return e, true
		}
	}
	return object.TreeEntry{}, false
}

func (s *Store) readMeta(t *object.Tree) (StoreEntry, error) {
	e, ok := findEntry(t, metaFile)
	if !ok {
		return StoreEntry{}, fmt.Errorf("meta: %w", ErrNotFound)
	}
	b, err := s.repo.ReadBlob(e.Hash)
	if err != nil {
		return StoreEntry{}, fmt.Errorf("meta: %w", err)
	}
	var entry StoreEntry
	if err := json.Unmarshal(b, &entry); err != nil {
		return StoreEntry{}, fmt.Errorf("parse meta: %w", err)
	}
	return entry, nil
}

// splitString cuts b into pieces of at most n bytes; empty b is one empty
// piece.
func splitString(b string, n int) []string {
	if len(b) <= n {
		return []string{b}
	}
	var out []string
	for len(b) > n {
		out = append(out, b[:n])
		b = b[n:]
	}
	if len(b) > 0 {
		out = append(out, b)
	}
	return out
}
