package redact

import (
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// Gates.
//
// A gate is a byte-speed necessary condition checked at the end of a prefix
// literal before any expression runs there. When the literals are exactly
// the leading elements of X, the elements after them that may match empty
// (skip) are followed by one that may not (next): a match continues with at
// most maxSkip runes of the skip elements' runes, then a first rune of next.
// Gitleaks' generic rules, for instance, need an assignment operator within
// a few identifier bytes of their keyword, which most keyword occurrences in
// source code lack.

// gate is the condition described above; the zero gate always passes.
type gate struct {
	on      bool
	skip    runeSet
	next    runeSet
	maxSkip int // in runes
}

// gateFor derives the gate of X whose prefix literals are prefix, or the
// zero gate when the literals are not exactly X's leading elements.
func gateFor(an analyzer, x *syntax.Regexp, prefix litSet) gate {
	subs := []*syntax.Regexp{x}
	if x.Op == syntax.OpConcat {
		subs = x.Sub
	}
	run := litSet{{}}
	k := 0
	for k < len(subs) && !sameLits(run, prefix) {
		in := an.analyze(subs[k])
		if in.exact == nil {
			return gate{}
		}
		if run = cross(run, in.exact); run == nil {
			return gate{}
		}
		k++
	}
	if !sameLits(run, prefix) {
		return gate{}
	}
	var g gate
	for _, sub := range subs[k:] {
		first, empty := firstRunes(sub)
		if !empty {
			g.next = first
			g.on = true
			return g
		}
		n := maxRunes(sub)
		if n < 0 {
			return gate{}
		}
		g.maxSkip += n
		addRunes(&g.skip, sub)
	}
	return gate{}
}

func sameLits(a, b litSet) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// firstRunes returns the runes a match of re can start with and whether re
// can match the empty string (then the runes after it matter too, which the
// caller handles).
func firstRunes(re *syntax.Regexp) (runeSet, bool) {
	var set runeSet
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return set, true
		}
		addRunes(&set, &syntax.Regexp{Op: syntax.OpLiteral, Flags: re.Flags, Rune: re.Rune[:1]})
		return set, false
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		addRunes(&set, re)
		return set, false
	case syntax.OpCapture, syntax.OpPlus:
		return firstRunes(re.Sub[0])
	case syntax.OpQuest, syntax.OpStar:
		set, _ = firstRunes(re.Sub[0])
		return set, true
	case syntax.OpRepeat:
		set, empty := firstRunes(re.Sub[0])
		return set, empty || re.Min == 0
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			f, empty := firstRunes(sub)
			set.union(&f)
			if !empty {
				return set, false
			}
		}
		return set, true
	case syntax.OpAlternate:
		anyEmpty := false
		for _, sub := range re.Sub {
			f, empty := firstRunes(sub)
			set.union(&f)
			anyEmpty = anyEmpty || empty
		}
		return set, anyEmpty
	}
	// Empty-width assertions and the empty match consume nothing.
	return set, true
}

func (rs *runeSet) union(o *runeSet) {
	for i, v := range o.ascii {
		rs.ascii[i] = rs.ascii[i] || v
	}
	rs.nonASCII = rs.nonASCII || o.nonASCII
}

// pass reports whether a match of X can continue after a literal ending at
// end: within maxSkip runes of skip runes, a rune of next follows.
func (g *gate) pass(s string, end int) bool {
	if !g.on {
		return true
	}
	i := end
	for n := 0; n <= g.maxSkip && i < len(s); n++ {
		r, w := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(s[i:])
		}
		if g.next.has(r) {
			return true
		}
		if !g.skip.has(r) {
			return false
		}
		i += w
	}
	return false
}
