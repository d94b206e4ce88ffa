package hide

import (
	"io"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"
)

// uniqueID returns an ID for source at t that exists reports as unused:
// random suffixes first, then every other 4-hex suffix in turn, and when all
// 65536 are taken (65536 hides from one source in one minute) the ID gets a
// further "_<n>" so that it is still unique. It never returns an ID in use.
func uniqueID(source string, t time.Time, exists func(string) bool) string {
	for range 8 {
		if id := NewID(source, t); !exists(id) {
			return id
		}
	}
	base := idWithSuffix(source, t, 0)
	for s := range 0x10000 {
		if id := idWithSuffix(source, t, s); !exists(id) {
			return id
		}
	}
	for n := 1; ; n++ {
		if id := base + "_" + strconv.Itoa(n); !exists(id) {
			return id
		}
	}
}

// indexFold returns the byte offset in s of the first match of query, case
// folded rune by rune (Unicode simple folding, as strings.EqualFold), or -1.
// A byte of query that is not valid UTF-8 matches only the same byte; an
// invalid byte of s matches only such a byte of query. Offsets are those
// of s itself, so case folding that changes byte lengths (KELVIN SIGN is 3
// bytes, "k" is 1) never shifts a position. An empty query gives -1.
func indexFold(s []byte, query string) int {
	if query == "" {
		return -1
	}
	for i := 0; i < len(s); i++ {
		if matchFoldAt(s, i, query) > 0 {
			return i
		}
	}
	return -1
}

// matchFoldAt returns the number of bytes of s, from i, that match query, or
// 0 when query does not match there.
func matchFoldAt(s []byte, i int, query string) int {
	j := i
	for q := 0; q < len(query); {
		if j >= len(s) {
			return 0
		}
		// ASCII fast path.
		if a, b := s[j], query[q]; a < utf8.RuneSelf && b < utf8.RuneSelf {
			if a != b && lowerASCII(a) != lowerASCII(b) {
				return 0
			}
			j++
			q++
			continue
		}
		rq, nq := utf8.DecodeRuneInString(query[q:])
		if rq == utf8.RuneError && nq == 1 {
			// An invalid byte of the query matches only the same byte.
			if s[j] != query[q] {
				return 0
			}
			j++
			q++
			continue
		}
		rs, ns := utf8.DecodeRune(s[j:])
		if (rs == utf8.RuneError && ns == 1) || !foldEqual(rs, rq) {
			return 0
		}
		j += ns
		q += nq
	}
	return j - i
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// foldEqual reports whether a and b are equal under Unicode simple case
// folding.
func foldEqual(a, b rune) bool {
	if a == b {
		return true
	}
	for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
		if r == b {
			return true
		}
	}
	return false
}

// maxMatchLen bounds the bytes of content a match of query can span: each
// rune of query matches one rune of at most 4 bytes (or one invalid byte).
func maxMatchLen(query string) int {
	return 4 * utf8.RuneCountInString(query)
}

// searchWindow is how many bytes searchReaderAt reads at a time.
const searchWindow = 1 << 20

// searchReaderAt returns the offset of the first case-folded match of query
// in the first size bytes of r, or -1, reading a bounded window at a time.
// Windows overlap by the longest possible match, so a match is found
// wherever it lies, including across page or window boundaries.
func searchReaderAt(r io.ReaderAt, size int64, query string) (int64, error) {
	return searchWindows(r, size, query, searchWindow)
}

// searchWindows is searchReaderAt with windows of window bytes (plus the
// overlap).
func searchWindows(r io.ReaderAt, size int64, query string, window int) (int64, error) {
	if query == "" || size <= 0 {
		return -1, nil
	}
	overlap := int64(maxMatchLen(query))
	buf := make([]byte, min(int64(window)+overlap, size))
	for start := int64(0); start < size; start += int64(window) {
		n := min(int64(len(buf)), size-start)
		if _, err := r.ReadAt(buf[:n], start); err != nil && err != io.EOF {
			return -1, err
		}
		win := buf[:n]
		limit := min(int64(window), n)
		for i := 0; int64(i) < limit; i++ {
			if matchFoldAt(win, i, query) > 0 {
				return start + int64(i), nil
			}
		}
	}
	return -1, nil
}
