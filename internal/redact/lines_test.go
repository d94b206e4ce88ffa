package redact

import (
	"slices"
	"strings"
	"testing"
)

// genericStarts returns where the generic-api-key findings of s start.
func genericStarts(r *Redactor, s string) []int {
	var out []int
	for _, f := range r.Scan(s) {
		if f.RuleID == "generic-api-key" {
			out = append(out, f.Start)
		}
	}
	return out
}

// TestLineAllowlistPerLine checks that an allowlist testing the line
// (gitleaks' generic rule allows lines with "--mount=type=secret,") judges
// each match by its own line when several matches share or change lines.
func TestLineAllowlistPerLine(t *testing.T) {
	t.Parallel()
	r := newTestRedactor(t, Options{})
	a, b := "apikey="+token(80, alnum, 20), "apikey="+token(81, alnum, 20)
	// The text after the comma keeps "secret," from starting a match of
	// its own that reaches into the next line.
	const allowed = " --mount=type=secret, x"
	at := func(s, sub string) int { return strings.Index(s, sub) + len("apikey=") }
	tests := []struct {
		name, in string
		want     func(s string) []int
	}{
		{"allowed line first", a + allowed + "\n" + b + "\n", func(s string) []int { return []int{at(s, b)} }},
		{"allowed line last", b + "\n" + a + allowed + "\n", func(s string) []int { return []int{at(s, b)} }},
		{"two matches on an allowed line", a + " " + b + allowed, func(string) []int { return nil }},
		{"two matches, then an allowed line", a + " " + b + "\n" + allowed, func(s string) []int { return []int{at(s, a), at(s, b)} }},
		{"allowed line between", a + "\n" + allowed + b + "\n" + a, func(s string) []int {
			return []int{at(s, a), strings.LastIndex(s, a) + len("apikey=")}
		}},
	}
	for _, tt := range tests {
		if got, want := genericStarts(r, tt.in), tt.want(tt.in); !slices.Equal(got, want) {
			t.Errorf("%s: generic findings at %v, want %v in %q", tt.name, got, want, tt.in)
		}
	}
}

// TestOccurrencesOfManySecrets checks occurrence expansion with many
// distinct secrets on one line, a third of them sharing their first bytes,
// each of which occurs again later without context, once or twice.
func TestOccurrencesOfManySecrets(t *testing.T) {
	t.Parallel()
	r := newTestRedactor(t, Options{})
	var in, tail strings.Builder
	var secrets []string
	for i := range 100 {
		tok := token(uint64(1000+i), alnum, 24)
		if i%3 == 0 {
			tok = "Zq9Xw2Lp" + tok[8:]
		}
		secrets = append(secrets, tok)
		in.WriteString("password=" + tok + " ")
	}
	for i, tok := range secrets {
		tail.WriteString(tok + ",")
		if i%2 == 0 {
			tail.WriteString(tok + ";")
		}
	}
	s := in.String() + "| " + tail.String()
	fs := r.Scan(s)
	found := map[int]bool{}
	for _, f := range fs {
		found[f.Start] = true
	}
	want := 0
	for _, tok := range secrets {
		if !found[strings.Index(s, tok)] {
			continue // not a secret to the rules (an allowlist holds it)
		}
		for from := 0; ; {
			k := strings.Index(s[from:], tok)
			if k < 0 {
				break
			}
			if !found[from+k] {
				t.Errorf("occurrence of %s at %d not found", tok, from+k)
			}
			from += k + len(tok)
			want++
		}
	}
	if want < 200 {
		t.Fatalf("only %d occurrences of found secrets; the test needs more", want)
	}
	if got := r.Text(s); strings.Count(got, Replacement) != want {
		t.Errorf("%d redactions, want %d: %q", strings.Count(got, Replacement), want, got)
	}
}

// TestAddOccurrencesDoNotOverlap checks that the occurrences of one secret
// are taken from the left without overlap, as a search from the end of the
// previous occurrence finds them, and that covered ones are skipped.
func TestAddOccurrencesDoNotOverlap(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("aaaa1234", 5) + " bbbb5678bbbb5678"
	secrets := []secretRef{{text: "aaaa1234aaaa1234", rule: "r"}, {text: "bbbb5678", rule: "q"}}
	covered := []Finding{{RuleID: "q", Start: 41, End: 49}}
	got := addOccurrences(s, slices.Clone(covered), secrets)
	want := []Finding{covered[0], {RuleID: "r", Start: 0, End: 16}, {RuleID: "r", Start: 16, End: 32}, {RuleID: "q", Start: 49, End: 57}}
	if !slices.Equal(sortFindings(got), sortFindings(want)) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestOccurrenceIndexMatchesSearch checks that one occurrence index, used
// for several texts, finds what searching each text for each secret in
// turn finds: secrets sharing their first bytes with different lengths, one
// the start of another, occurring overlapped, at the ends of the texts and
// cut short by them.
func TestOccurrenceIndexMatchesSearch(t *testing.T) {
	t.Parallel()
	secrets := []secretRef{
		{text: "Zq9Xw2Lp", rule: "a"},
		{text: "Zq9Xw2Lp77", rule: "b"},
		{text: "Zq9Xw2Lp7788", rule: "c"},
		{text: "Zq9Xw2LqAA", rule: "d"},
		{text: "xxxxxxxxxx", rule: "e"},
	}
	texts := []string{
		"",
		"Zq9Xw2L",
		"Zq9Xw2Lp7788 Zq9Xw2Lp77Zq9Xw2LqAA",
		"xxxxxxxxxxxxxxxxxxxxxxxxx Zq9Xw2Lp778",
		"Zq9Xw2LpZq9Xw2LpZq9Xw2Lp77",
	}
	// search is occurrence expansion as one search per secret.
	search := func(s string, fs []Finding) []Finding {
		covered := spanIndex(mergeSpans(sortFindings(slices.Clone(fs))))
		for _, sec := range secrets {
			for from := 0; ; {
				k := strings.Index(s[from:], sec.text)
				if k < 0 {
					break
				}
				st, en := from+k, from+k+len(sec.text)
				if !covered.covers(st, en) {
					fs = append(fs, Finding{RuleID: sec.rule, Start: st, End: en})
				}
				from = en
			}
		}
		return fs
	}
	x := newOccurrenceIndex(secrets)
	for _, s := range texts {
		for _, fs := range [][]Finding{nil, {{RuleID: "f", Start: 0, End: min(len(s), 12)}}} {
			got, want := sortFindings(x.add(s, slices.Clone(fs))), sortFindings(search(s, slices.Clone(fs)))
			if !slices.Equal(got, want) {
				t.Errorf("in %q with %v: got %v, want %v", s, fs, got, want)
			}
		}
	}
}
