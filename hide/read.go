package hide

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// inlineLimit is the content size up to which a page is cut from the blob
// read in memory; larger hides are served from the cache file.
const inlineLimit = 1 << 20

// storedHide is what lookup finds about one hide on the branch.
type storedHide struct {
	entry  StoreEntry
	tree   plumbing.Hash // the hide's directory
	chunks []chunk       // content, content.001, ...
	size   int64         // sum of the chunk sizes
}

type chunk struct {
	hash plumbing.Hash
	size int64
}

// lookup finds hide id on the current branch tip.
func (s *Store) lookup(id string) (*storedHide, error) {
	if err := ValidateID(id); err != nil {
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
	e, ok := findEntry(root, id)
	if !ok || e.Mode != filemode.Dir {
		return nil, fmt.Errorf("unknown hide id %q: %w", id, ErrNotFound)
	}
	t, err := s.repo.Git.TreeObject(e.Hash)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", e.Hash, err)
	}
	entry, err := s.readMeta(t)
	if err != nil {
		return nil, err
	}
	h := &storedHide{entry: entry, tree: e.Hash}
	byName := map[string]plumbing.Hash{}
	var names []string
	for _, te := range t.Entries {
		if agent.ParseChunkIndex(te.Name, contentFile) >= 0 {
			byName[te.Name] = te.Hash
			names = append(names, te.Name)
		}
	}
	names = agent.SortChunkFiles(names, contentFile)
	if len(names) == 0 || names[0] != contentFile {
		return nil, fmt.Errorf("content: %w", ErrNotFound)
	}
	for _, n := range names {
		sz, err := s.repo.ObjectSize(byName[n])
		if err != nil {
			return nil, fmt.Errorf("content: %w", err)
		}
		h.chunks = append(h.chunks, chunk{hash: byName[n], size: sz})
		h.size += sz
	}
	return h, nil
}

// Cut returns page (1-based) of hide id with pages of pageSizeBytes bytes
// (DefaultPageSize when <= 0). A small hide is cut from its blob; a large
// one from a copy inflated once into the cache, read at the page's offset.
// The Cut has no ReflectionHint. Errors wrap ErrInvalidID, ErrNotFound or
// ErrPageOutOfRange (a *PageRangeError).
func (s *Store) Cut(id string, page, pageSizeBytes int) (Cut, error) {
	h, err := s.lookup(id)
	if err != nil {
		return Cut{}, fmt.Errorf("hide/store.Cut %s: %w", id, err)
	}
	start, end, total, err := pageRange(id, h.size, page, pageSizeBytes)
	if err != nil {
		return Cut{}, err
	}
	src, err := s.open(h)
	if err != nil {
		return Cut{}, fmt.Errorf("hide/store.Cut %s: %w", id, err)
	}
	defer src.Close()
	buf := make([]byte, end-start)
	if _, err := src.ReadAt(buf, start); err != nil && !(errors.Is(err, io.EOF) && len(buf) == 0) {
		return Cut{}, fmt.Errorf("hide/store.Cut %s: read page %d: %w", id, page, err)
	}
	return Cut{
		HideID: id, Source: h.entry.Source, PageNumber: page, TotalPages: total,
		SizeBytes: len(buf), Content: string(buf), IsFinal: page == total,
	}, nil
}

// Search returns the page of hide id on which the first case-insensitive
// match of query begins, with found = true, reading the content a window
// at a time. A match across a page boundary is found. An empty query or no
// match gives page 1 with found = false. Errors are those of Cut.
func (s *Store) Search(id, query string, pageSizeBytes int) (Cut, bool, error) {
	h, err := s.lookup(id)
	if err != nil {
		return Cut{}, false, fmt.Errorf("hide/store.Search %s: %w", id, err)
	}
	src, err := s.open(h)
	if err != nil {
		return Cut{}, false, fmt.Errorf("hide/store.Search %s: %w", id, err)
	}
	off, err := searchReaderAt(src, h.size, query)
	src.Close()
	if err != nil {
		return Cut{}, false, fmt.Errorf("hide/store.Search %s: %w", id, err)
	}
	page, found := 1, off >= 0
	if found {
		page = int(off/int64(normPageSize(pageSizeBytes))) + 1
	}
	c, err := s.Cut(id, page, pageSizeBytes)
	return c, found, err
}

// readerAtCloser is the content of a hide opened for random access.
type readerAtCloser interface {
	io.ReaderAt
	io.Closer
}

type nopCloserReaderAt struct{ *bytes.Reader }

func (nopCloserReaderAt) Close() error { return nil }

// open returns the content of h for random access: in memory when small,
// else the cache file, inflating it first when missing.
func (s *Store) open(h *storedHide) (readerAtCloser, error) {
	if h.size <= inlineLimit && len(h.chunks) == 1 {
		b, err := s.repo.ReadBlob(h.chunks[0].hash)
		if err != nil {
			return nil, err
		}
		return nopCloserReaderAt{bytes.NewReader(b)}, nil
	}
	path := filepath.Join(s.cacheDir, h.tree.String())
	if f, err := os.Open(path); err == nil {
		if fi, err := f.Stat(); err == nil && fi.Size() == h.size {
			return f, nil
		}
		f.Close()
	}
	if err := s.fillCache(h, path); err != nil {
		return nil, fmt.Errorf("cache content: %w", err)
	}
	return os.Open(path)
}

// fillCache inflates the chunks of h into path: a temp file in the same
// directory (made 0700), fsynced, then renamed.
func (s *Store) fillCache(h *storedHide, path string) error {
	f, err := atomicfile.Create(s.cacheDir, atomicfile.Options{Perm: 0o600, DirPerm: 0o700, Sync: atomicfile.SyncFile, TempPattern: "tmp-*"})
	if err != nil {
		return err
	}
	defer f.Abort()
	for _, c := range h.chunks {
		if err := s.copyBlob(f, c.hash); err != nil {
			return err
		}
	}
	if err := f.Commit(path); err != nil {
		return err
	}
	s.pruneCache()
	return nil
}

// cacheTTL is how long an inflated copy stays in the cache after it was
// made. A pruned copy in use stays readable through its open descriptor,
// and is inflated again on the next page.
const cacheTTL = 7 * 24 * time.Hour

// pruneCache removes cached copies made more than cacheTTL ago, so that the
// cache does not grow without bound. It runs only when a copy is added.
func (s *Store) pruneCache() {
	entries, err := os.ReadDir(s.cacheDir)
	if err != nil {
		return
	}
	cutoff := s.now().Add(-cacheTTL)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
			_ = os.Remove(filepath.Join(s.cacheDir, e.Name()))
		}
	}
}

// copyBlob streams blob h into w.
func (s *Store) copyBlob(w io.Writer, h plumbing.Hash) error {
	b, err := s.repo.Git.BlobObject(h)
	if err != nil {
		return fmt.Errorf("read blob %s: %w", h, err)
	}
	rd, err := b.Reader()
	if err != nil {
		return fmt.Errorf("read blob %s: %w", h, err)
	}
	defer rd.Close()
	if _, err := io.Copy(w, rd); err != nil {
		return fmt.Errorf("read blob %s: %w", h, err)
	}
	return nil
}

// dropCache removes the cached copy of the hide directory tree.
func (s *Store) dropCache(tree plumbing.Hash) {
	_ = os.Remove(filepath.Join(s.cacheDir, tree.String()))
}

func cacheDirOf(repo *gitrepo.Repo) string {
	if repo == nil {
		return ""
	}
	return filepath.Join(repo.CommonDir, "entire", "hide-cache")
}
