package hide

import (
	"fmt"
	"sync"
	"time"
)

// HideBuffer is an in-process store of hides for one run. It is safe for
// concurrent use. Hides keep the order they were stored in, which makes
// FirstCut deterministic.
type HideBuffer struct {
	// ReflectionHint, when set, is copied onto every Cut the buffer returns
	// (see Cut.ReflectionHint). Set it before sharing the buffer between
	// goroutines.
	ReflectionHint string

	mu       sync.Mutex
	hides    map[string]*Hide
	order    []string // IDs, oldest first
	pageSize int
	now      func() time.Time
}

// NewHideBuffer returns an empty buffer whose pages are pageSize bytes
// (DefaultPageSize when pageSize <= 0).
func NewHideBuffer(pageSize int) *HideBuffer {
	return &HideBuffer{hides: map[string]*Hide{}, pageSize: normPageSize(pageSize), now: time.Now}
}

// PageSize returns the buffer's page size in bytes.
func (b *HideBuffer) PageSize() int { return b.pageSize }

// Store adds content under a new ID made from source and the current time,
// and returns the new Hide. The ID never collides with one already in the
// buffer: on a collision another suffix is drawn.
func (b *HideBuffer) Store(source, content string) *Hide {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	id := uniqueID(source, now, func(id string) bool { _, ok := b.hides[id]; return ok })
	h := &Hide{ID: id, Source: source, Content: content, CreatedAt: now}
	b.insertLocked(h)
	return h
}

// insertLocked adds h, replacing a hide with the same ID in place.
func (b *HideBuffer) insertLocked(h *Hide) {
	if _, ok := b.hides[h.ID]; !ok {
		b.order = append(b.order, h.ID)
	}
	b.hides[h.ID] = h
}

// Get returns the hide with the given ID, or (nil, false). The returned
// Hide must not be modified.
func (b *HideBuffer) Get(id string) (*Hide, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	h, ok := b.hides[id]
	return h, ok
}

// Len returns the number of hides in the buffer.
func (b *HideBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.order)
}

// ResolveID returns id when a hide has that ID. Otherwise, when the buffer
// holds exactly one hide, it returns that hide's ID, which forgives a
// missing or mistyped ID from a model. With no hide or several it returns
// ("", false). The fallback never reaches outside this buffer.
func (b *HideBuffer) ResolveID(id string) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.hides[id]; ok && id != "" {
		return id, true
	}
	if len(b.order) == 1 {
		return b.order[0], true
	}
	return "", false
}

// Cut returns page (1-based) of hide id. It returns an error wrapping
// ErrNotFound for an unknown id, and a *PageRangeError (ErrPageOutOfRange)
// for a page below 1 or above the page count.
func (b *HideBuffer) Cut(id string, page int) (Cut, error) {
	h, ok := b.Get(id)
	if !ok {
		return Cut{}, fmt.Errorf("hide/Cut: unknown hide id %q: %w", id, ErrNotFound)
	}
	c, err := cutOf(h.ID, h.Source, h.Content, page, b.pageSize)
	if err != nil {
		return Cut{}, err
	}
	c.ReflectionHint = b.ReflectionHint
	return c, nil
}

// FirstCut returns page 1 of the oldest hide in the buffer (the first one
// stored), or an error wrapping ErrEmpty when there is none.
func (b *HideBuffer) FirstCut() (Cut, error) {
	b.mu.Lock()
	if len(b.order) == 0 {
		b.mu.Unlock()
		return Cut{}, fmt.Errorf("hide/FirstCut: %w", ErrEmpty)
	}
	id := b.order[0]
	b.mu.Unlock()
	return b.Cut(id, 1)
}

// NeedsPaging reports whether any hide in the buffer has more than one page,
// that is whether the hide navigation tools are worth offering.
func (b *HideBuffer) NeedsPaging() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, h := range b.hides {
		if TotalPages(int64(len(h.Content)), b.pageSize) > 1 {
			return true
		}
	}
	return false
}

// Search returns the page on which the first case-insensitive match of query
// begins, with found = true. A match that runs across a page boundary is
// found, and reported on the page where it begins. An empty query or no
// match gives page 1 with found = false. Case folding is Unicode simple
// folding applied rune by rune, so no input can make it fail. An unknown id
// is an error wrapping ErrNotFound.
func (b *HideBuffer) Search(id, query string) (Cut, bool, error) {
	h, ok := b.Get(id)
	if !ok {
		return Cut{}, false, fmt.Errorf("hide/Search: unknown hide id %q: %w", id, ErrNotFound)
	}
	page, found := 1, false
	if off := indexFold([]byte(h.Content), query); off >= 0 {
		page, found = off/b.pageSize+1, true
	}
	c, err := b.Cut(h.ID, page)
	return c, found, err
}
