package checkpoint

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// blobStore writes the values moved out of long lines and keeps the
// entries of the BlobDir tree that holds them.
type blobStore struct {
	repo    *gitrepo.Repo
	entries map[string]object.TreeEntry
}

func newBlobStore(repo *gitrepo.Repo) *blobStore {
	return &blobStore{repo: repo, entries: map[string]object.TreeEntry{}}
}

// store writes value as a blob, or as a tree of parts of at most
// agent.MaxChunkSize bytes (the chunk limit, which keeps every object far
// below forges' size limits), and returns the entry's name.
func (s *blobStore) store(value []byte) (string, error) {
	if len(value) <= agent.MaxChunkSize {
		h, err := s.repo.WriteBlob(value)
		if err != nil {
			return "", fmt.Errorf("store transcript value: %w", err)
		}
		s.entries[h.String()] = object.TreeEntry{Name: h.String(), Mode: filemode.Regular, Hash: h}
		return h.String(), nil
	}
	var parts []object.TreeEntry
	for off := 0; off < len(value); off += agent.MaxChunkSize {
		h, err := s.repo.WriteBlob(value[off:min(off+agent.MaxChunkSize, len(value))])
		if err != nil {
			return "", fmt.Errorf("store transcript value: %w", err)
		}
		parts = append(parts, object.TreeEntry{Name: fmt.Sprintf("%03d", len(parts)), Mode: filemode.Regular, Hash: h})
	}
	slices.SortFunc(parts, func(a, b object.TreeEntry) int { return bytes.Compare([]byte(a.Name), []byte(b.Name)) })
	h, err := s.repo.WriteTree(parts)
	if err != nil {
		return "", fmt.Errorf("store transcript value: %w", err)
	}
	s.entries[h.String()] = object.TreeEntry{Name: h.String(), Mode: filemode.Dir, Hash: h}
	return h.String(), nil
}

// add adds the entries of the BlobDir tree t (ZeroHash: none).
func (s *blobStore) add(t plumbing.Hash) error {
	if t.IsZero() {
		return nil
	}
	tree, err := s.repo.Git.TreeObject(t)
	if err != nil {
		return fmt.Errorf("read %s: %w", BlobDir, err)
	}
	for _, e := range tree.Entries {
		s.entries[e.Name] = e
	}
	return nil
}

// tree writes the BlobDir tree of the entries and returns its hash,
// ZeroHash when there are none.
func (s *blobStore) tree() (plumbing.Hash, error) {
	if len(s.entries) == 0 {
		return plumbing.ZeroHash, nil
	}
	entries := make([]object.TreeEntry, 0, len(s.entries))
	for _, e := range s.entries {
		entries = append(entries, e)
	}
	// Names are 40 hex digits: byte order is git's tree order.
	slices.SortFunc(entries, func(a, b object.TreeEntry) int { return bytes.Compare([]byte(a.Name), []byte(b.Name)) })
	h, err := s.repo.WriteTree(entries)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write %s: %w", BlobDir, err)
	}
	return h, nil
}

// blobSet is the BlobDir tree of a stored transcript, as a valueSource.
type blobSet struct {
	repo    *gitrepo.Repo
	entries map[string]object.TreeEntry
	// sizes caches valueSize: a name may be used by many markers.
	sizes map[string]int
}

// loadBlobSet reads the BlobDir tree t; nil for ZeroHash.
func loadBlobSet(repo *gitrepo.Repo, t plumbing.Hash) (*blobSet, error) {
	if t.IsZero() {
		return nil, nil
	}
	s := newBlobStore(repo)
	if err := s.add(t); err != nil {
		return nil, err
	}
	return &blobSet{repo: repo, entries: s.entries, sizes: map[string]int{}}, nil
}

func (b *blobSet) valueSize(name string) (int, bool) {
	if n, ok := b.sizes[name]; ok {
		return n, n >= 0
	}
	n, ok := b.entrySize(name)
	if !ok {
		n = -1
	}
	b.sizes[name] = n
	return n, ok
}

// entrySize is the size of the value stored as entry name, read from git.
func (b *blobSet) entrySize(name string) (int, bool) {
	e, ok := b.entries[name]
	if !ok {
		return 0, false
	}
	if e.Mode != filemode.Dir {
		n, err := b.repo.ObjectSize(e.Hash)
		return int(n), err == nil
	}
	t, err := b.repo.Git.TreeObject(e.Hash)
	if err != nil {
		return 0, false
	}
	total := 0
	for _, p := range t.Entries {
		n, err := b.repo.ObjectSize(p.Hash)
		if err != nil {
			return 0, false
		}
		// Saturate: the parts of a hostile tree may add up past any int.
		total = min(total+int(n), MaxReadTranscript+1)
	}
	return total, true
}

func (b *blobSet) appendValue(dst []byte, name string) ([]byte, error) {
	e := b.entries[name]
	hashes := []plumbing.Hash{e.Hash}
	if e.Mode == filemode.Dir {
		t, err := b.repo.Git.TreeObject(e.Hash)
		if err != nil {
			return nil, fmt.Errorf("read transcript value %s: %w", name, err)
		}
		parts := slices.Clone(t.Entries)
		slices.SortFunc(parts, func(a, b object.TreeEntry) int { return partIndex(a.Name) - partIndex(b.Name) })
		hashes = hashes[:0]
		for _, p := range parts {
			hashes = append(hashes, p.Hash)
		}
	}
	for _, h := range hashes {
		v, err := b.repo.ReadBlob(h)
		if err != nil {
			return nil, fmt.Errorf("read transcript value %s: %w", name, err)
		}
		dst = append(dst, v...)
	}
	return dst, nil
}

// partIndex is the number a part of a value is named by.
func partIndex(name string) int {
	n, err := strconv.Atoi(name)
	if err != nil {
		return -1
	}
	return n
}
