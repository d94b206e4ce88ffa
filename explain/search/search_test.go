package search

import "testing"

func TestSnippet(t *testing.T) {
	text := "We looked at the flaky retry loop in the uploader and fixed the backoff."
	s, ok := Snippet(text, []string{"backoff"}, 40)
	if !ok || s == "" || s[len(s)-len("backoff."):] != "backoff." {
		t.Fatalf("Snippet = %q %v", s, ok)
	}
	if _, ok := Snippet(text, []string{"zebra"}, 40); ok {
		t.Error("found a word the text lacks")
	}
	if s, ok := Snippet("ünïcödé text around a wörd here", []string{"wörd"}, 8); !ok || !isValid(s) {
		t.Errorf("Snippet cut a rune: %q", s)
	}
}

func isValid(s string) bool {
	for _, r := range s {
		if r == '\uFFFD' {
			return false
		}
	}
	return true
}

func FuzzSnippet(f *testing.F) {
	f.Add("some text to search", "text", 10)
	f.Fuzz(func(t *testing.T, text, term string, width int) {
		if width < 0 || width > 1000 {
			return
		}
		Snippet(text, queryTerms(term), width)
	})
}
