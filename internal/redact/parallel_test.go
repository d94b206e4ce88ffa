package redact

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Scanning a text in parts finds what one scan of it finds, wherever the
// secrets fall against the cuts.
func TestDetectInPartsMatchesWholeScan(t *testing.T) {
	t.Parallel()
	r := newTestRedactor(t, Options{Patterns: []string{`ticket-[0-9]{6}`}})
	secrets := plantedSecrets(3)
	for seed := range uint64(12) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 99))
			var b strings.Builder
			for b.Len() < 160<<10 {
				switch rng.IntN(12) {
				case 0:
					p := secrets[rng.IntN(len(secrets))]
					b.WriteString(p.text)
				case 1:
					fmt.Fprintf(&b, "ticket-%06d and ", rng.IntN(1e6))
				default:
					fmt.Fprintf(&b, "line %d of the build: compiling package %x ok", b.Len(), rng.Uint64())
				}
				if rng.IntN(4) > 0 {
					b.WriteByte('\n')
				}
			}
			s := b.String()
			want := r.detect(s, true)
			if len(want) < 5 {
				t.Fatalf("only %d findings in the text: the test plants too little", len(want))
			}
			for _, n := range []int{2, 3, 7, 16} {
				if got, want := r.detectInParts(s, true, n, 16<<10), sortFindings(slices.Clone(want)); !slices.Equal(got, want) {
					t.Errorf("%d parts: %d findings, one scan %d\nonly in parts: %v\nonly whole: %v", n, len(got), len(want), minus(got, want), minus(want, got))
				}
			}
		})
	}
}

// A text without line ends, or too short to cut, is scanned whole.
func TestLineCuts(t *testing.T) {
	t.Parallel()
	if c := lineCuts(strings.Repeat("x", 1000), 4); len(c) != 0 {
		t.Errorf("no line ends: cuts %v", c)
	}
	s := strings.Repeat("abcdefghi\n", 100)
	c := lineCuts(s, 4)
	if len(c) != 3 {
		t.Fatalf("cuts %v", c)
	}
	for _, at := range c {
		if s[at-1] != '\n' {
			t.Errorf("cut %d is not after a line end", at)
		}
	}
	if c := lineCuts("a\nb", 8); !slices.IsSorted(c) || len(c) > 1 {
		t.Errorf("short text: cuts %v", c)
	}
}

// minus returns the findings of a not in b.
func minus(a, b []Finding) []Finding {
	var out []Finding
	for _, f := range a {
		if !slices.Contains(b, f) {
			out = append(out, f)
		}
	}
	return out
}
