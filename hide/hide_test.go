package hide

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestCutFormat(t *testing.T) {
	t.Parallel()
	base := Cut{HideID: "hide_fetch_big_20260607_1412_a3f9", Source: "fetch_big", PageNumber: 1, TotalPages: 3, SizeBytes: 5, Content: "hello"}
	final := base
	final.PageNumber, final.IsFinal = 3, true
	tests := []struct {
		name string
		cut  Cut
		want string
	}{
		{"default, more pages", base,
			"[HIDE id=hide_fetch_big_20260607_1412_a3f9 source=fetch_big page=1/3 bytes=5]\n" +
				"Do not infer from unseen pages. Call hide_next or hide_jump to retrieve more pages.\nhello\n[END page 1/3]"},
		{"default, final", final,
			"[HIDE id=hide_fetch_big_20260607_1412_a3f9 source=fetch_big page=3/3 bytes=5]\n" +
				"Do not infer from unseen pages. This is the complete content \u2014 no further pages.\nhello\n[END page 3/3]"},
		{"reflection, more pages", withHint(base, "List key facts."),
			"[HIDE id=hide_fetch_big_20260607_1412_a3f9 source=fetch_big page=1/3 bytes=5]\n" +
				"Do not infer from unseen pages. List key facts.\nhello\n[END page 1/3]"},
		{"reflection, final", withHint(final, "List key facts."),
			"[HIDE id=hide_fetch_big_20260607_1412_a3f9 source=fetch_big page=3/3 bytes=5]\n" +
				"Do not infer from unseen pages. This is the final page. No further pages remain. List key facts.\nhello\n[END page 3/3]"},
	}
	header := regexp.MustCompile(`\[HIDE id=([^\s]+)\s+[^\]]*page=([0-9]+)/([0-9]+)`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.cut.Format()
			if got != tt.want {
				t.Fatalf("Format:\n%q\nwant\n%q", got, tt.want)
			}
			m := header.FindStringSubmatch(got)
			if m == nil || m[1] != tt.cut.HideID {
				t.Fatalf("host regex does not parse the header: %v", m)
			}
		})
	}
}

func withHint(c Cut, h string) Cut { c.ReflectionHint = h; return c }

func TestSanitizeAndID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"gh_pr_thread": "gh_pr_thread", "My Tool!": "my_tool_", "tool-name.v2": "tool_name_v2", "": "", "é": "_"} {
		if got := SanitizeSource(in); got != want {
			t.Errorf("SanitizeSource(%q) = %q, want %q", in, got, want)
		}
	}
	at := time.Date(2026, 6, 7, 14, 12, 0, 0, time.UTC)
	id := NewID("fetch big", at)
	if !regexp.MustCompile(`^hide_fetch_big_20260607_1412_[0-9a-f]{4}$`).MatchString(id) {
		t.Fatalf("NewID = %q", id)
	}
	if err := ValidateID(id); err != nil {
		t.Fatal(err)
	}
	if got := NewID("", at); !strings.HasPrefix(got, "hide__20260607_1412_") {
		t.Fatalf("empty source id %q", got)
	}
}

func TestValidateIDRejectsPaths(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"", ".", "..", ".git", "a/b", "a\\b", "/abs", "x\x00", "sp ace", strings.Repeat("a", 201)} {
		if err := ValidateID(id); !errors.Is(err, ErrInvalidID) {
			t.Errorf("ValidateID(%q) = %v, want ErrInvalidID", id, err)
		}
	}
}

func TestUniqueIDNeverCollides(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	used := map[string]bool{}
	// Every 4-hex suffix taken: the ID must still be new.
	for s := range 0x10000 {
		used[idWithSuffix("t", at, s)] = true
	}
	id := uniqueID("t", at, func(id string) bool { return used[id] })
	if used[id] || ValidateID(id) != nil {
		t.Fatalf("uniqueID gave %q (used=%v)", id, used[id])
	}
}

func TestTotalPages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		size int64
		ps   int
		want int
	}{{0, 10, 1}, {1, 10, 1}, {10, 10, 1}, {11, 10, 2}, {3800, 0, 1}, {3801, -1, 2}}
	for _, tt := range tests {
		if got := TotalPages(tt.size, tt.ps); got != tt.want {
			t.Errorf("TotalPages(%d,%d) = %d, want %d", tt.size, tt.ps, got, tt.want)
		}
	}
}

func TestBufferCut(t *testing.T) {
	t.Parallel()
	b := NewHideBuffer(4)
	h := b.Store("tool", "abcdefghij")
	empty := b.Store("tool", "")
	tests := []struct {
		name    string
		id      string
		page    int
		content string
		final   bool
		err     error
	}{
		{"first", h.ID, 1, "abcd", false, nil},
		{"last partial", h.ID, 3, "ij", true, nil},
		{"page 0", h.ID, 0, "", false, ErrPageOutOfRange},
		{"past end", h.ID, 4, "", false, ErrPageOutOfRange},
		{"empty content is one page", empty.ID, 1, "", true, nil},
		{"empty content page 2", empty.ID, 2, "", false, ErrPageOutOfRange},
		{"unknown", "hide_nope", 1, "", false, ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := b.Cut(tt.id, tt.page)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			if c.Content != tt.content || c.IsFinal != tt.final || c.SizeBytes != len(tt.content) || c.Source != "tool" {
				t.Fatalf("cut = %+v", c)
			}
		})
	}
	var pre *PageRangeError
	if _, err := b.Cut(h.ID, 9); !errors.As(err, &pre) || pre.Total != 3 || !strings.Contains(err.Error(), "out of range [1,3]") {
		t.Fatalf("range error %v", err)
	}
}

func TestBufferResolveFirstCutNeedsPaging(t *testing.T) {
	t.Parallel()
	b := NewHideBuffer(4)
	if _, ok := b.ResolveID(""); ok {
		t.Fatal("empty buffer resolved")
	}
	if _, err := b.FirstCut(); !errors.Is(err, ErrEmpty) {
		t.Fatalf("FirstCut on empty: %v", err)
	}
	first := b.Store("a", "abc")
	if b.NeedsPaging() {
		t.Fatal("one page needs no paging")
	}
	if id, ok := b.ResolveID("hallucinated"); !ok || id != first.ID {
		t.Fatalf("one-hide fallback: %q %v", id, ok)
	}
	if id, ok := b.ResolveID(""); !ok || id != first.ID {
		t.Fatalf("empty id fallback: %q %v", id, ok)
	}
	b.ReflectionHint = "note facts"
	for range 20 {
		b.Store("b", "0123456789")
	}
	if !b.NeedsPaging() {
		t.Fatal("a 3-page hide needs paging")
	}
	if _, ok := b.ResolveID("hallucinated"); ok {
		t.Fatal("fallback with several hides")
	}
	if id, ok := b.ResolveID(first.ID); !ok || id != first.ID {
		t.Fatal("exact id")
	}
	if b.Len() != 21 {
		t.Fatalf("Len = %d: IDs collided", b.Len())
	}
	for range 5 {
		c, err := b.FirstCut()
		if err != nil || c.HideID != first.ID || c.ReflectionHint != "note facts" {
			t.Fatalf("FirstCut = %+v, %v; want the oldest hide", c, err)
		}
	}
}

func TestBufferSearch(t *testing.T) {
	t.Parallel()
	b := NewHideBuffer(10)
	h := b.Store("t", "0123456789abcdefNEEDLEzz0123456789xxxxxxStraddle")
	tests := []struct {
		query string
		page  int
		found bool
	}{
		{"needle", 2, true},
		{"NEEDLE", 2, true},
		{"xxstrad", 4, true}, // begins on page 4, ends on page 5
		{"6789abc", 1, true}, // straddles pages 1 and 2
		{"absent", 1, false},
		{"", 1, false},
	}
	for _, tt := range tests {
		c, found, err := b.Search(h.ID, tt.query)
		if err != nil || found != tt.found || c.PageNumber != tt.page {
			t.Errorf("Search(%q) = page %d found %v err %v; want page %d found %v", tt.query, c.PageNumber, found, err, tt.page, tt.found)
		}
	}
	if _, _, err := b.Search("nope", "x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestSearchUnicodeFolding(t *testing.T) {
	t.Parallel()
	// KELVIN SIGN (3 bytes) folds to "k" (1 byte); U+0130 lowers to 1 byte
	// in Go. The upstream scan sliced the lowered copy with original offsets
	// and panicked on these.
	b := NewHideBuffer(8)
	content := strings.Repeat("\u212a\u0130", 10) + "Target"
	h := b.Store("t", content)
	c, found, err := b.Search(h.ID, "target")
	if err != nil || !found {
		t.Fatalf("found=%v err=%v", found, err)
	}
	off := strings.Index(content, "Target")
	if c.PageNumber != off/8+1 {
		t.Fatalf("page %d, want %d", c.PageNumber, off/8+1)
	}
	if _, found, _ := b.Search(h.ID, "K"); !found {
		t.Fatal("KELVIN SIGN should match K")
	}
}

func FuzzSearch(f *testing.F) {
	f.Add("hello world", "WORLD", 3)
	f.Add("\u212a\u0130abc", "k", 1)
	f.Add("\xff\xfeabc", "\xfe", 2)
	f.Add("ab", "", 1)
	f.Fuzz(func(t *testing.T, content, query string, ps int) {
		ps = ps%64 + 1
		if ps < 1 {
			ps = -ps + 1
		}
		b := NewHideBuffer(ps)
		h := b.Store("fz", content)
		c, found, err := b.Search(h.ID, query)
		if err != nil {
			t.Fatalf("Search error: %v", err)
		}
		if c.PageNumber < 1 || c.PageNumber > c.TotalPages {
			t.Fatalf("page %d of %d", c.PageNumber, c.TotalPages)
		}
		off := indexFold([]byte(content), query)
		if found != (off >= 0) {
			t.Fatalf("found %v, offset %d", found, off)
		}
		if found {
			n := matchFoldAt([]byte(content), off, query)
			if utf8.ValidString(content) && utf8.ValidString(query) && !strings.EqualFold(content[off:off+n], query) {
				t.Fatalf("match %q is not EqualFold to %q", content[off:off+n], query)
			}
		}
		// Anything strings.Contains finds, we find (at the same place or earlier).
		if query != "" {
			if i := strings.Index(content, query); i >= 0 && (off < 0 || off > i) {
				t.Fatalf("exact match at %d, fold search gave %d", i, off)
			}
		}
		// Windowed search agrees with the in-memory one, whatever the
		// window size (matches straddle windows as they straddle pages).
		for _, w := range []int{1, 2, 3, 7, searchWindow} {
			got, err := searchWindows(strings.NewReader(content), int64(len(content)), query, w)
			if err != nil || int(got) != off {
				t.Fatalf("searchWindows(window %d) = %d, %v; indexFold = %d", w, got, err, off)
			}
		}
	})
}
