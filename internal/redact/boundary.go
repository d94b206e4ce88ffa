package redact

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// relaxTrailingBoundary rewrites a rule expression whose alternatives end
// with a boundary group (a non-capturing group after every capture group,
// with the end of the text among its alternatives: most of gitleaks' rules
// end with "(?:[\x60'"\s;]|\\[nr]|$)", the secret counting only before a
// backtick, a quote, whitespace, ';', an escaped newline or the end) so
// that the secret may also end before any character but a letter or a
// digit; a leading group with the start of the text among its
// alternatives (azure's "(?:^|[\\'"\x60\s>=:(,)])") likewise accepts any
// such character before it. A key followed by '.', ')', '/', ',' or inside
// a file name ("stripe=<key>.cfg") is still a key: gitleaks' boundary let
// those through, and for keys that look like hex the entropy check never
// caught them.
//
// It also returns the characters the expression's capture groups admit
// (case folds included): a secret the rewritten expression finds is
// extended over the ones that follow it (see rule.extend), so that a match
// never ends inside what the secret's class could go on with (the first
// alternative of gitleaks' generic rule, [\w.=-]{10,150}, would otherwise
// stop before the '+' of a base64 key the second alternative takes whole).
// Where gitleaks matches, the rewritten rule matches the same secret; it
// matches more only where gitleaks' boundary was too narrow. Expressions
// without such a group, or that do not parse, are returned as they are,
// with nil.
func relaxTrailingBoundary(re string) (string, []rune) {
	tree, err := syntax.Parse(re, syntax.Perl)
	if err != nil || tree.MaxCap() == 0 {
		return re, nil
	}
	alts := []*syntax.Regexp{tree}
	if tree.Op == syntax.OpAlternate {
		alts = tree.Sub
	}
	changed := false
	for _, alt := range alts {
		if alt.Op != syntax.OpConcat || len(alt.Sub) < 2 {
			continue
		}
		last := alt.Sub[len(alt.Sub)-1]
		if isBoundaryGroup(last, syntax.OpEndText, syntax.OpEndLine) && alt.MaxCap() > 0 {
			alt.Sub[len(alt.Sub)-1] = widenBoundary(last)
			changed = true
		}
		first := alt.Sub[0]
		if isBoundaryGroup(first, syntax.OpBeginText, syntax.OpBeginLine) {
			alt.Sub[0] = widenBoundary(first)
			changed = true
		}
	}
	if !changed {
		return re, nil
	}
	var admitted []rune // pairs of inclusive ranges
	var walk func(n *syntax.Regexp, inGroup bool)
	walk = func(n *syntax.Regexp, inGroup bool) {
		if n.Op == syntax.OpCapture {
			inGroup = true
		}
		if inGroup {
			admitted = append(admitted, admits(n)...)
		}
		for _, sub := range n.Sub {
			walk(sub, inGroup)
		}
	}
	walk(tree, false)
	return tree.String(), normalize(admitted)
}

// notAlnum returns the class of every character but an ASCII letter or
// digit.
func notAlnum() []rune {
	return []rune{0, '0' - 1, '9' + 1, 'A' - 1, 'Z' + 1, 'a' - 1, 'z' + 1, unicode.MaxRune}
}

// isBoundaryGroup reports whether n is a boundary group: alternatives
// without a capture, one of them the anchor op or alt.
func isBoundaryGroup(n *syntax.Regexp, op, alt syntax.Op) bool {
	if n.Op != syntax.OpAlternate || n.MaxCap() > 0 {
		return false
	}
	for _, sub := range n.Sub {
		if sub.Op == op || sub.Op == alt {
			return true
		}
	}
	return false
}

// widenBoundary returns the group n with one more alternative: any
// character but a letter or a digit.
func widenBoundary(n *syntax.Regexp) *syntax.Regexp {
	subs := append([]*syntax.Regexp(nil), n.Sub...)
	subs = append(subs, &syntax.Regexp{Op: syntax.OpCharClass, Rune: notAlnum()})
	return &syntax.Regexp{Op: syntax.OpAlternate, Sub: subs, Flags: n.Flags}
}

// extendSecret returns the end of a secret s[start:end] extended over the
// characters that follow it while the rule's groups admit them (ranges),
// up to maxExtend bytes; gitleaks' boundary characters (a backtick, a
// quote, whitespace, ';') always end it.
func extendSecret(s string, start, end int, ranges []rune) int {
	for end < len(s) && end-start < maxExtend {
		r, size := utf8.DecodeRuneInString(s[end:])
		if r == '`' || r == '\'' || r == '"' || r == ';' || unicode.IsSpace(r) || !inRanges(ranges, r) {
			break
		}
		end += size
	}
	return end
}

// maxExtend bounds how long an extended secret may get.
const maxExtend = 4096

// inRanges reports whether r lies in one of the sorted inclusive ranges.
func inRanges(ranges []rune, r rune) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		if r < ranges[i] {
			return false
		}
		if r <= ranges[i+1] {
			return true
		}
	}
	return false
}

// admits returns the character ranges one node matches by itself (its
// literals and classes, case folds included), not those of its children.
func admits(n *syntax.Regexp) []rune {
	switch n.Op {
	case syntax.OpLiteral:
		var out []rune
		for _, r := range n.Rune {
			out = append(out, r, r)
			if n.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					out = append(out, f, f)
				}
			}
		}
		return out
	case syntax.OpCharClass:
		return append([]rune(nil), n.Rune...)
	case syntax.OpAnyCharNotNL:
		return []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}
	case syntax.OpAnyChar:
		return []rune{0, unicode.MaxRune}
	}
	return nil
}

// normalize returns the ranges sorted and merged.
func normalize(ranges []rune) []rune {
	if len(ranges) == 0 {
		return nil
	}
	return complement(complement(ranges))
}

// complement returns the ranges of characters none of the ranges hold.
func complement(ranges []rune) []rune {
	type span struct{ lo, hi rune }
	spans := make([]span, 0, len(ranges)/2)
	for i := 0; i+1 < len(ranges); i += 2 {
		spans = append(spans, span{ranges[i], ranges[i+1]})
	}
	// Insertion sort: a rule's groups hold a few dozen ranges.
	for i := 1; i < len(spans); i++ {
		for j := i; j > 0 && spans[j].lo < spans[j-1].lo; j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	var out []rune
	next := rune(0)
	for _, s := range spans {
		if s.lo > next {
			out = append(out, next, s.lo-1)
		}
		if s.hi+1 > next {
			next = s.hi + 1
		}
	}
	if next <= unicode.MaxRune {
		out = append(out, next, unicode.MaxRune)
	}
	return out
}
