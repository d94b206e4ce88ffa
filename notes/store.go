package notes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// BranchRef is the branch that holds the notes of every agent.
const BranchRef plumbing.ReferenceName = "refs/heads/entire/notes/v1"

// noteExt is the file extension of a note blob: <agent>/<key>.json.
const noteExt = ".json"

// Store reads and writes the notes of one agent namespace on BranchRef. It
// is safe for concurrent use, and safe against other processes writing the
// same branch: every change is a compare-and-swap of the ref, rebuilt and
// retried when another writer moved it.
type Store struct {
	repo   *gitrepo.Repo
	agent  string
	redact func(string) string
	now    func() time.Time
}

// Option configures a Store.
type Option func(*Store)

// WithAgent selects the agent namespace, an agent's registry name
// (agent.AgentName). Empty means DefaultAgent.
func WithAgent(name string) Option { return func(s *Store) { s.agent = name } }

// WithRedact sets the function applied to note content before it becomes a
// git object. Nil means identity.
func WithRedact(f func(string) string) Option { return func(s *Store) { s.redact = f } }

// WithClock sets the clock for timestamps and commits. Nil means time.Now.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// NewStore returns the notes store of one agent (DefaultAgent unless
// WithAgent says otherwise) in repo. It does no I/O; it returns an error
// wrapping ErrInvalidAgent for a bad agent name.
func NewStore(ctx context.Context, repo *gitrepo.Repo, opts ...Option) (*Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if repo == nil {
		return nil, errors.New("notes: no repository")
	}
	s := &Store{repo: repo}
	for _, o := range opts {
		o(s)
	}
	if s.agent == "" {
		s.agent = DefaultAgent
	}
	if err := ValidateAgent(s.agent); err != nil {
		return nil, err
	}
	if s.redact == nil {
		s.redact = func(v string) string { return v }
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Agent returns the store's agent namespace.
func (s *Store) Agent() string { return s.agent }

// Save upserts a note. key is trimmed of surrounding space. It returns an
// error wrapping ErrInvalidKey when the key fails the key rule,
// ErrNoteTooLarge when maxBytes > 0 and len(content) > maxBytes (checked
// first), and ErrTooManyNotes when the key is new, maxCount > 0 and the
// agent already has maxCount notes. Updating an existing key is allowed at
// the cap. An update keeps CreatedAt and the pin flag. The count check runs
// inside the compare-and-swap, so concurrent savers cannot pass the cap.
func (s *Store) Save(ctx context.Context, key, content string, maxBytes, maxCount int) error {
	key = strings.TrimSpace(key)
	if err := ValidateKey(key); err != nil {
		return err
	}
	if maxBytes > 0 && len(content) > maxBytes {
		return fmt.Errorf("%w: %d > %d bytes", ErrNoteTooLarge, len(content), maxBytes)
	}
	stored := s.redact(content)
	return s.update(ctx, "save "+key, func(dir *object.Tree) ([]gitrepo.Change, error) {
		now := s.now().UTC()
		n := Note{Key: key, Content: stored, Preview: Preview(stored), CreatedAt: now, UpdatedAt: now}
		// An existing note that cannot be parsed is overwritten as new
		// content of the same key.
		if old, ok, err := s.readNote(dir, key); ok {
			if err == nil {
				n.CreatedAt, n.InContext = old.CreatedAt, old.InContext
			}
		} else if maxCount > 0 {
			if count := countNotes(dir); count >= maxCount {
				return nil, fmt.Errorf("%w: %d notes already stored (cap %d)", ErrTooManyNotes, count, maxCount)
			}
		}
		return s.noteChange(n)
	})
}

// Get returns the note with key (not trimmed). A missing note is an error
// wrapping ErrNotFound; an invalid key one wrapping ErrInvalidKey.
func (s *Store) Get(ctx context.Context, key string) (Note, error) {
	if err := ValidateKey(key); err != nil {
		return Note{}, err
	}
	dir, err := s.agentTree(ctx)
	if err != nil {
		return Note{}, fmt.Errorf("get note %q: %w", key, err)
	}
	n, ok, err := s.readNote(dir, key)
	if err != nil {
		return Note{}, fmt.Errorf("get note %q: %w", key, err)
	}
	if !ok {
		return Note{}, fmt.Errorf("get note %q: %w", key, ErrNotFound)
	}
	return n, nil
}

// Delete removes the note with key. A missing key succeeds; an invalid one
// is an error wrapping ErrInvalidKey.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	return s.update(ctx, "delete "+key, func(dir *object.Tree) ([]gitrepo.Change, error) {
		if _, ok := findEntry(dir, key+noteExt); !ok {
			return nil, nil
		}
		return []gitrepo.Change{{Path: s.agent + "/" + key + noteExt, Delete: true}}, nil
	})
}

// SetInContext pins (true) or unpins (false) the note with key and bumps
// its UpdatedAt, so it moves to the top of List even when the flag did not
// change. A missing key is an error wrapping ErrNotFound.
func (s *Store) SetInContext(ctx context.Context, key string, inContext bool) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	verb := "unpin "
	if inContext {
		verb = "pin "
	}
	return s.update(ctx, verb+key, func(dir *object.Tree) ([]gitrepo.Change, error) {
		n, ok, err := s.readNote(dir, key)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("note %q: %w", key, ErrNotFound)
		}
		n.InContext, n.UpdatedAt = inContext, s.now().UTC()
		return s.noteChange(n)
	})
}

// List returns every note of the agent, most recently updated first (ties
// by key). No notes gives nil. Blobs that are not valid notes are skipped.
func (s *Store) List(ctx context.Context) ([]Note, error) {
	return s.list(ctx, false)
}

// ListInContext returns the pinned notes, in List's order.
func (s *Store) ListInContext(ctx context.Context) ([]Note, error) {
	return s.list(ctx, true)
}

// Count returns the number of notes of the agent.
func (s *Store) Count(ctx context.Context) (int, error) {
	dir, err := s.agentTree(ctx)
	if err != nil {
		return 0, fmt.Errorf("count notes: %w", err)
	}
	return countNotes(dir), nil
}

// TreeHash returns the hash of the agent's notes tree as it is now, the
// value a checkpoint stores as its notes/ subtree; plumbing.ZeroHash when
// the agent has no notes.
func (s *Store) TreeHash(ctx context.Context) (plumbing.Hash, error) {
	dir, err := s.agentTree(ctx)
	if err != nil || dir == nil {
		return plumbing.ZeroHash, err
	}
	return dir.Hash, nil
}

// Restore makes the agent's notes what tree holds (a hash TreeHash
// returned earlier), as one new commit on the branch; history keeps what
// was replaced. plumbing.ZeroHash or the empty tree removes every note of
// the agent. A hash that is not a tree in the repository is an error.
func (s *Store) Restore(ctx context.Context, tree plumbing.Hash) error {
	change := gitrepo.Change{Path: s.agent, Delete: true}
	if !tree.IsZero() && tree != gitrepo.EmptyTree {
		if _, err := s.repo.Git.TreeObject(tree); err != nil {
			return fmt.Errorf("restore notes of %s: tree %s: %w", s.agent, tree, err)
		}
		change = gitrepo.Change{Path: s.agent, Mode: filemode.Dir, Hash: tree}
	}
	return s.update(ctx, "restore "+tree.String()[:12], func(dir *object.Tree) ([]gitrepo.Change, error) {
		if dir != nil && dir.Hash == tree || dir == nil && change.Delete {
			return nil, nil
		}
		return []gitrepo.Change{change}, nil
	})
}

func (s *Store) list(ctx context.Context, pinnedOnly bool) ([]Note, error) {
	dir, err := s.agentTree(ctx)
	if err != nil {
		return nil, fmt.Errorf("list notes: %w", err)
	}
	if dir == nil {
		return nil, nil
	}
	var out []Note
	for _, e := range dir.Entries {
		key, ok := strings.CutSuffix(e.Name, noteExt)
		if !ok || e.Mode != filemode.Regular || ValidateKey(key) != nil {
			continue
		}
		n, err := s.decode(e.Hash, key)
		if err != nil || (pinnedOnly && !n.InContext) {
			continue
		}
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].UpdatedAt.Equal(out[j].UpdatedAt) {
			return out[i].UpdatedAt.After(out[j].UpdatedAt)
		}
		return out[i].Key < out[j].Key
	})
	return out, nil
}

// update applies the changes build returns for the agent's current tree
// (nil when it has none) as one commit, by compare-and-swap with retry.
// build returning no changes skips the commit.
func (s *Store) update(ctx context.Context, what string, build func(dir *object.Tree) ([]gitrepo.Change, error)) error {
	_, err := s.repo.UpdateRefFunc(ctx, BranchRef, func(cur plumbing.Hash) (plumbing.Hash, error) {
		root, err := s.repo.CommitTree(cur)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		dir, err := s.subtree(root)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		changes, err := build(dir)
		if err != nil || len(changes) == 0 {
			return cur, err
		}
		base := plumbing.ZeroHash
		if root != nil {
			base = root.Hash
		}
		tree, err := s.repo.BuildTree(base, changes)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		sig := s.repo.Author(s.now())
		c := &object.Commit{Author: sig, Committer: sig, TreeHash: tree,
			Message: fmt.Sprintf("notes(%s): %s\n", s.agent, what)}
		if !cur.IsZero() {
			c.ParentHashes = []plumbing.Hash{cur}
		}
		return s.repo.WriteCommit(c)
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrTooManyNotes) {
			return err
		}
		return fmt.Errorf("%s note: %w", strings.Fields(what)[0], err)
	}
	return nil
}

// noteChange writes n as a blob and returns the change that stores it.
func (s *Store) noteChange(n Note) ([]gitrepo.Change, error) {
	b, err := json.MarshalIndent(n, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode note: %w", err)
	}
	h, err := s.repo.WriteBlob(append(b, '\n'))
	if err != nil {
		return nil, err
	}
	return []gitrepo.Change{{Path: s.agent + "/" + n.Key + noteExt, Mode: filemode.Regular, Hash: h}}, nil
}

func (s *Store) agentTree(ctx context.Context) (*object.Tree, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cur, err := s.repo.ReadRef(BranchRef)
	if err != nil {
		return nil, err
	}
	root, err := s.repo.CommitTree(cur)
	if err != nil {
		return nil, err
	}
	return s.subtree(root)
}

// subtree returns the agent's directory in root, or nil.
func (s *Store) subtree(root *object.Tree) (*object.Tree, error) {
	e, ok := findEntry(root, s.agent)
	if !ok || e.Mode != filemode.Dir {
		return nil, nil
	}
	t, err := s.repo.Git.TreeObject(e.Hash)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", e.Hash, err)
	}
	return t, nil
}

// readNote returns the note with key in dir; ok reports whether an entry
// exists, even when it cannot be parsed (err != nil).
func (s *Store) readNote(dir *object.Tree, key string) (n Note, ok bool, err error) {
	e, ok := findEntry(dir, key+noteExt)
	if !ok {
		return Note{}, false, nil
	}
	n, err = s.decode(e.Hash, key)
	return n, true, err
}

func (s *Store) decode(h plumbing.Hash, key string) (Note, error) {
	b, err := s.repo.ReadBlob(h)
	if err != nil {
		return Note{}, err
	}
	var n Note
	if err := json.Unmarshal(b, &n); err != nil {
		return Note{}, fmt.Errorf("parse note %q: %w", key, err)
	}
	n.Key = key
	return n, nil
}

func countNotes(dir *object.Tree) int {
	if dir == nil {
		return 0
	}
	n := 0
	for _, e := range dir.Entries {
		if strings.HasSuffix(e.Name, noteExt) {
			n++
		}
	}
	return n
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
