package checkpoint

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/oklog/ulid/v2"
)

// Layout is where a store writes the checkpoints it creates.
type Layout int

const (
	// LayoutBranch writes checkpoints into the entire/checkpoints/v1
	// branch under 12-hex IDs (SPEC 3.7), what Entire 0.4.x reads.
	LayoutBranch Layout = iota
	// LayoutRefs writes each checkpoint as its own ref under a ULID,
	// refs/entire/checkpoints/<last two>/<id>, the checkpoint at the root
	// of the ref's tree (SPEC 10.3), what today's Entire writes.
	LayoutRefs
)

// String names the layout as the settings do ("git-branch", "git-refs").
func (l Layout) String() string {
	if l == LayoutRefs {
		return "git-refs"
	}
	return "git-branch"
}

// WithLayout returns a store over the same repository that creates new
// checkpoints in layout l (NewID, and where a write of a checkpoint that
// does not exist yet goes). Checkpoints that exist stay where they are.
func (s *Store) WithLayout(l Layout) *Store {
	c := *s
	c.layout = l
	return &c
}

// Layout is the layout the store creates checkpoints in.
func (s *Store) Layout() Layout { return s.layout }

// NewID returns a fresh ID for a checkpoint of the store's layout: a ULID
// at the store's clock in LayoutRefs, 12 random hex characters otherwise.
func (s *Store) NewID() ID {
	if s.layout == LayoutRefs {
		return NewULID(s.now())
	}
	return NewID()
}

// NewULID returns a ULID for time t with 80 crypto-random bits (SPEC 10.2).
func NewULID(t time.Time) ID {
	u, err := ulid.New(ulid.Timestamp(t), rand.Reader)
	if err != nil {
		// crypto/rand does not fail on supported platforms (Go 1.24+);
		// a time before 1970 or after 10889 is no clock of ours.
		panic(fmt.Sprintf("checkpoint: new ULID: %v", err))
	}
	return ID(u.String())
}

// ULIDTime returns the time a ULID checkpoint ID carries; false for a hex
// ID.
func ULIDTime(id ID) (time.Time, bool) {
	if !id.IsULID() {
		return time.Time{}, false
	}
	u, err := ulid.ParseStrict(string(id))
	if err != nil {
		return time.Time{}, false
	}
	return ulid.Time(u.Time()).UTC(), true
}

// writesRef reports whether a write of checkpoint id goes to its own ref:
// a ULID always does, and so does an ID whose ref exists; a hex ID in
// LayoutRefs does unless the metadata branch already holds it.
func (s *Store) writesRef(id ID) bool {
	if id.IsULID() {
		return true
	}
	if h, err := s.repo.ReadRef(id.RefName()); err == nil && !h.IsZero() {
		return true
	}
	if s.layout != LayoutRefs {
		return false
	}
	tip, err := s.repo.ReadRef(MetadataRef)
	if err != nil || tip.IsZero() {
		return true
	}
	root, err := s.repo.CommitTree(tip)
	if err != nil {
		return true
	}
	_, err = root.FindEntry(id.Shard())
	return err != nil
}

// The push queue: each checkpoint ref a write moved is named by an empty
// file <git common dir>/entire-checkpoint-queue/<id> until a push lands it
// (SPEC 10.3 "writes queue the ref"). A file per ID needs no lock: a writer
// creates the file after moving the ref, and Dequeue removes it before
// reading the ref again.
const queueDir = "entire-checkpoint-queue"

// Queue names checkpoint id as waiting for a push.
func (s *Store) Queue(id ID) error {
	dir := filepath.Join(s.repo.CommonDir, queueDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("queue checkpoint %s: %w", id, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, string(id)), os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("queue checkpoint %s: %w", id, err)
	}
	return f.Close()
}

// Queued returns the checkpoints waiting for a push, oldest ID first.
func (s *Store) Queued() ([]ID, error) {
	entries, err := os.ReadDir(filepath.Join(s.repo.CommonDir, queueDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the checkpoint push queue: %w", err)
	}
	var ids []ID
	for _, e := range entries {
		if id := ID(e.Name()); id.Valid() && e.Type().IsRegular() {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, nil
}

// Dequeue takes checkpoint id off the push queue once pushed (the ref's
// commit that landed). When the ref has moved since (a write after the
// push read it), the ID stays queued.
func (s *Store) Dequeue(id ID, pushed plumbing.Hash) error {
	if !id.Valid() {
		return fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	path := filepath.Join(s.repo.CommonDir, queueDir, string(id))
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("dequeue checkpoint %s: %w", id, err)
	}
	if cur, err := s.repo.ReadRef(id.RefName()); err == nil && cur != pushed && !cur.IsZero() {
		return s.Queue(id)
	}
	return nil
}

// LayoutOf returns the layout checkpoints.primary.type names (SPEC 10.1):
// LayoutRefs for "git-refs", LayoutBranch for "git-branch" or no setting.
// A type this version does not know, or a block it cannot read, gives
// LayoutRefs and the error: checkpoints are then kept, each on its own
// ref, and (push.Resolve) not sent anywhere.
func LayoutOf(typ string, err error) (Layout, error) {
	switch {
	case err != nil:
		return LayoutRefs, err
	case typ == "git-refs":
		return LayoutRefs, nil
	case typ == "git-branch" || typ == "":
		return LayoutBranch, nil
	}
	return LayoutRefs, fmt.Errorf("checkpoints.primary.type %q is not a layout this version knows", typ)
}

// SearchIndexDir is the directory of the local search index (entire
// search) under the git common directory.
const SearchIndexDir = "entire-search"
