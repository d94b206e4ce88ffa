package hide

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// DefaultPageSize is the page size in bytes used when a page size of zero or
// less is given.
const DefaultPageSize = 3800

// Sentinel errors. They are wrapped with context; test with errors.Is.
var (
	// ErrNotFound means no hide has the given ID.
	ErrNotFound = errors.New("hide: not found")
	// ErrInvalidID means the ID cannot name a hide: empty, ".", "..",
	// containing a path separator, or characters outside [A-Za-z0-9_.-].
	ErrInvalidID = errors.New("hide: invalid id")
	// ErrPageOutOfRange means the page asked for is below 1 or above the
	// hide's page count. The concrete error is a *PageRangeError.
	ErrPageOutOfRange = errors.New("hide: page out of range")
	// ErrEmpty means the buffer holds no hide.
	ErrEmpty = errors.New("hide: no hides in buffer")
)

// PageRangeError reports a page outside [1, Total] of hide ID. It matches
// ErrPageOutOfRange with errors.Is.
type PageRangeError struct {
	ID    string
	Page  int
	Total int
}

func (e *PageRangeError) Error() string {
	return fmt.Sprintf("hide/Cut: page %d out of range [1,%d] for hide %q", e.Page, e.Total, e.ID)
}

// Is reports whether target is ErrPageOutOfRange.
func (e *PageRangeError) Is(target error) bool { return target == ErrPageOutOfRange }

// Hide is one stored large raw tool result.
type Hide struct {
	// ID is the unique identifier, "hide_<sanitized-source>_<yyyymmdd>_<HHMM>_<4-hex>".
	ID string
	// Source is the tool name that produced this hide, unsanitized.
	Source string
	// Content is the full raw content; it is never sent to the agent whole.
	Content string
	// CreatedAt is when the hide was stored.
	CreatedAt time.Time
}

// Cut is a bounded page view of a hide. PageNumber is 1-based.
type Cut struct {
	// HideID is the ID of the parent hide.
	HideID string
	// Source is the tool name that produced the parent hide.
	Source string
	// PageNumber is the 1-based number of this page.
	PageNumber int
	// TotalPages is the number of pages of the parent hide (at least 1).
	TotalPages int
	// SizeBytes is len(Content).
	SizeBytes int
	// Content is the byte range of the hide's content for this page.
	Content string
	// IsFinal is true when PageNumber == TotalPages.
	IsFinal bool
	// ReflectionHint, when non-empty, replaces the default navigation hint
	// in Format (prefixed by a final-page notice on the last page), so that
	// per-page instructions reach the model inside the tool result.
	ReflectionHint string
}

// Hint texts used by Format.
const (
	hintMore      = "Call hide_next or hide_jump to retrieve more pages."
	hintComplete  = "This is the complete content \u2014 no further pages."
	hintFinalPre  = "This is the final page. No further pages remain. "
	hintNoInferer = "Do not infer from unseen pages. "
)

// Format returns the plain-text envelope that delivers c to a model:
//
//	[HIDE id=<id> source=<source> page=<n>/<total> bytes=<size>]
//	Do not infer from unseen pages. <hint>
//	<content>
//	[END page <n>/<total>]
//
// with no newline after the END line. The hint is the navigation hint
// ("Call hide_next or hide_jump to retrieve more pages.") on a page that is
// not the last, "This is the complete content — no further pages." on the
// last, or ReflectionHint when set (prefixed by "This is the final page. No
// further pages remain. " on the last page).
func (c Cut) Format() string {
	var hint string
	switch {
	case c.ReflectionHint == "" && !c.IsFinal:
		hint = hintMore
	case c.ReflectionHint == "":
		hint = hintComplete
	case !c.IsFinal:
		hint = c.ReflectionHint
	default:
		hint = hintFinalPre + c.ReflectionHint
	}
	var b strings.Builder
	b.Grow(len(c.Content) + len(c.HideID) + len(c.Source) + len(hint) + 120)
	fmt.Fprintf(&b, "[HIDE id=%s source=%s page=%d/%d bytes=%d]\n", c.HideID, c.Source, c.PageNumber, c.TotalPages, c.SizeBytes)
	b.WriteString(hintNoInferer)
	b.WriteString(hint)
	b.WriteByte('\n')
	b.WriteString(c.Content)
	fmt.Fprintf(&b, "\n[END page %d/%d]", c.PageNumber, c.TotalPages)
	return b.String()
}

// TotalPages returns the number of pages of size bytes at pageSize bytes a
// page: 1 for empty content, else ceil(size/pageSize). A pageSize of zero or
// less means DefaultPageSize.
func TotalPages(size int64, pageSize int) int {
	ps := int64(normPageSize(pageSize))
	if size <= 0 {
		return 1
	}
	return int((size + ps - 1) / ps)
}

// pageRange returns the byte range [start, end) of page (1-based) of a
// content of size bytes, or a *PageRangeError.
func pageRange(id string, size int64, page, pageSize int) (start, end int64, total int, err error) {
	ps := int64(normPageSize(pageSize))
	total = TotalPages(size, pageSize)
	if page < 1 || page > total {
		return 0, 0, total, &PageRangeError{ID: id, Page: page, Total: total}
	}
	start = int64(page-1) * ps
	end = min(start+ps, size)
	return start, end, total, nil
}

func normPageSize(ps int) int {
	if ps <= 0 {
		return DefaultPageSize
	}
	return ps
}

// cutOf builds the Cut of page of content.
func cutOf(id, source, content string, page, pageSize int) (Cut, error) {
	start, end, total, err := pageRange(id, int64(len(content)), page, pageSize)
	if err != nil {
		return Cut{}, err
	}
	body := content[start:end]
	return Cut{
		HideID: id, Source: source, PageNumber: page, TotalPages: total,
		SizeBytes: len(body), Content: body, IsFinal: page == total,
	}, nil
}

// SanitizeSource returns source lowercased with every rune outside
// [a-z0-9_] replaced by one "_" ("My Tool!" gives "my_tool_"). Empty stays
// empty.
func SanitizeSource(source string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(source) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// NewID returns a hide ID for source made at t:
// "hide_<sanitized source>_<yyyymmdd>_<HHMM>_<4 hex>", the time in t's
// location and the suffix random. Callers that keep hides check the result
// against the IDs in use and draw again on a collision.
func NewID(source string, t time.Time) string {
	return idWithSuffix(source, t, rand.IntN(0x10000))
}

func idWithSuffix(source string, t time.Time, suffix int) string {
	return "hide_" + SanitizeSource(source) + "_" + t.Format("20060102_1504") + "_" + fmt.Sprintf("%04x", suffix&0xffff)
}

// maxIDLen bounds an ID so that it stays a valid file and tree entry name.
const maxIDLen = 200

// ValidateID returns nil when id can name a hide, else an error wrapping
// ErrInvalidID. An ID is 1 to 200 bytes of [A-Za-z0-9_.-], does not start
// with "." (so ".", ".." and ".git" are rejected) and contains no path
// separator.
func ValidateID(id string) error {
	if id == "" || len(id) > maxIDLen || id[0] == '.' {
		return fmt.Errorf("%w: %s", ErrInvalidID, strconv.Quote(id))
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' {
			continue
		}
		return fmt.Errorf("%w: %s", ErrInvalidID, strconv.Quote(id))
	}
	return nil
}
