package redact

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Literal analysis of regular expressions.
//
// For every rule the engine derives from the parsed expression
// (regexp/syntax) literals that every match must start with (a prefix set)
// or contain (a factor set), and a bound on how far a match reaches. It then
// runs the expression only where those literals occur (plan.go). The sets are
// over-approximations in one direction only: every match holds one of the
// literals; an occurrence of a literal need not be part of a match.

// maxLits bounds the size of a literal set; larger sets are dropped.
const maxLits = 256

// maxLitLen bounds the length of prefix and factor literals; longer ones are
// cut (a prefix of a required prefix, or a part of a required factor, is
// still required).
const maxLitLen = 32

// maxBudget caps byte budgets so sums cannot overflow.
const maxBudget = 1 << 20

// lit is a literal: its bytes, lower-cased when fold is set, in which case
// ASCII letters match either case. Non-ASCII bytes always match exactly.
type lit struct {
	s    string
	fold bool
}

// litSet is a set of literals; nil means unknown (too many, or infinite).
type litSet []lit

// reInfo is what the analysis knows about a (sub)expression.
type reInfo struct {
	exact  litSet // every string the expression matches, or nil
	prefix litSet // every match starts with one of these; {""} when unknown
	factor litSet // every match contains one of these, or nil
}

// analyzer computes literal information, remembering it per node (plans
// ask about the same subexpressions several times).
type analyzer map[*syntax.Regexp]reInfo

// analyze returns the literal information of re.
func analyze(re *syntax.Regexp) reInfo { return analyzer{}.analyze(re) }

// analyze returns the literal information of re.
func (an analyzer) analyze(re *syntax.Regexp) reInfo {
	if in, ok := an[re]; ok {
		return in
	}
	in := an.compute(re)
	an[re] = in
	return in
}

func (an analyzer) compute(re *syntax.Regexp) reInfo {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return exactInfo(litSet{{}})
	case syntax.OpLiteral:
		return exactInfo(literalSet(re.Rune, re.Flags&syntax.FoldCase != 0))
	case syntax.OpCharClass:
		if set := classSet(re.Rune); set != nil {
			return exactInfo(set)
		}
	case syntax.OpCapture:
		return an.analyze(re.Sub[0])
	case syntax.OpConcat:
		return an.concat(re.Sub)
	case syntax.OpAlternate:
		return an.alternate(re.Sub)
	case syntax.OpQuest:
		sub := an.analyze(re.Sub[0])
		if sub.exact != nil {
			return exactInfo(union(sub.exact, litSet{{}}))
		}
	case syntax.OpPlus:
		sub := an.analyze(re.Sub[0])
		return reInfo{prefix: sub.prefix, factor: best(sub.exact, sub.factor)}
	case syntax.OpRepeat:
		sub := an.analyze(re.Sub[0])
		if re.Min == 1 && re.Max == 1 {
			return sub
		}
		if re.Min >= 1 {
			return reInfo{prefix: sub.prefix, factor: best(sub.exact, sub.factor)}
		}
		if re.Max == 1 && sub.exact != nil {
			return exactInfo(union(sub.exact, litSet{{}}))
		}
	}
	return reInfo{prefix: litSet{{}}}
}

func exactInfo(set litSet) reInfo {
	if set == nil {
		return reInfo{prefix: litSet{{}}}
	}
	return reInfo{exact: set, prefix: set, factor: set}
}

func (an analyzer) concat(subs []*syntax.Regexp) reInfo {
	run := litSet{{}} // cross product of the current run of exact subs
	exact := true
	prefixDone := false
	var prefix litSet
	var factor litSet
	consider := func(set litSet) { factor = best(factor, set) }
	for _, sub := range subs {
		in := an.analyze(sub)
		if in.exact != nil {
			if x := cross(run, in.exact); x != nil {
				run = x
				continue
			}
		}
		exact = false
		joined := cross(run, in.prefix)
		if joined == nil {
			joined = run
		}
		if !prefixDone {
			prefix, prefixDone = joined, true
		}
		consider(joined)
		consider(in.factor)
		run = litSet{{}}
		if in.exact != nil {
			run = in.exact
		}
	}
	if exact {
		return exactInfo(run)
	}
	consider(run)
	return reInfo{prefix: trimLits(prefix), factor: trimLits(factor)}
}

func (an analyzer) alternate(subs []*syntax.Regexp) reInfo {
	var exact, prefix, factor litSet
	exactOK, prefixOK, factorOK := true, true, true
	for _, sub := range subs {
		in := an.analyze(sub)
		if exactOK {
			if exact = union(exact, in.exact); in.exact == nil || exact == nil {
				exactOK = false
			}
		}
		if prefixOK {
			if prefix = union(prefix, in.prefix); prefix == nil {
				prefixOK = false
			}
		}
		if factorOK {
			f := best(in.exact, in.factor)
			if factor = union(factor, f); f == nil || factor == nil || score(f) == 0 {
				factorOK = false
			}
		}
	}
	if exactOK {
		return exactInfo(exact)
	}
	if !prefixOK {
		prefix = litSet{{}}
	}
	info := reInfo{prefix: trimLits(prefix)}
	if factorOK {
		info.factor = trimLits(factor)
	}
	return info
}

// literalSet returns the strings a literal matches. Under case folding a
// rune matches its whole Unicode fold orbit: ASCII members are covered by
// the fold flag, non-ASCII ones (the Kelvin sign for k, the long s for s)
// become separate literals.
func literalSet(runes []rune, fold bool) litSet {
	set := litSet{{}}
	for _, r := range runes {
		var alts litSet
		if fold {
			for _, v := range foldOrbit(r) {
				if v < utf8.RuneSelf {
					alts = append(alts, lit{s: string(unicode.ToLower(v)), fold: true})
				} else {
					alts = append(alts, lit{s: string(v)})
				}
			}
			alts = dedupe(alts)
		} else {
			alts = litSet{{s: string(r)}}
		}
		if set = cross(set, alts); set == nil {
			return nil
		}
	}
	return set
}

// foldOrbit returns r and every rune that folds to it.
func foldOrbit(r rune) []rune {
	out := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		out = append(out, f)
	}
	return out
}

// classSet enumerates a small character class; nil when it is large. A
// class that is exactly an ASCII letter in both cases becomes one folded
// literal.
func classSet(ranges []rune) litSet {
	n := 0
	for i := 0; i < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > 8 {
			return nil
		}
	}
	var set litSet
	for i := 0; i < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			set = append(set, lit{s: string(r)})
		}
	}
	if len(set) == 2 && len(set[0].s) == 1 && len(set[1].s) == 1 &&
		set[0].s != set[1].s && strings.EqualFold(set[0].s, set[1].s) {
		return litSet{{s: strings.ToLower(set[0].s), fold: true}}
	}
	return set
}

// cross returns every concatenation of a literal of a with one of b, or nil
// when either is unknown or the result is too large.
func cross(a, b litSet) litSet {
	if a == nil || b == nil || len(a)*len(b) > maxLits {
		return nil
	}
	out := make(litSet, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			if x.fold || y.fold {
				out = append(out, lit{s: lowerASCII(x.s) + lowerASCII(y.s), fold: true})
			} else {
				out = append(out, lit{s: x.s + y.s})
			}
		}
	}
	return dedupe(out)
}

// union returns the literals of a and b; nil when the result is too large.
// A nil operand counts as empty.
func union(a, b litSet) litSet {
	if len(a)+len(b) > maxLits {
		return nil
	}
	return dedupe(append(slices.Clone(a), b...))
}

func dedupe(set litSet) litSet {
	out := set[:0:0]
	if len(set) <= 16 {
		for _, x := range set {
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
		return out
	}
	seen := make(map[lit]bool, len(set))
	for _, x := range set {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// trimLits cuts literals to maxLitLen bytes (on a rune boundary).
func trimLits(set litSet) litSet {
	if set == nil {
		return nil
	}
	out := make(litSet, 0, len(set))
	for _, x := range set {
		if len(x.s) > maxLitLen {
			n := maxLitLen
			for n > 0 && !utf8.RuneStart(x.s[n]) {
				n--
			}
			x.s = x.s[:n]
		}
		out = append(out, x)
	}
	return dedupe(out)
}

// score rates how selective a set is as a search key: the length of its
// shortest literal (0 when it holds the empty string or is unknown).
func score(set litSet) int {
	if len(set) == 0 {
		return 0
	}
	n := maxLitLen + 1
	for _, x := range set {
		n = min(n, len(x.s))
	}
	return n
}

// best returns the more selective of two sets (fewer literals on a tie).
func best(a, b litSet) litSet {
	sa, sb := score(a), score(b)
	switch {
	case sa > sb:
		return a
	case sb > sa:
		return b
	case sa == 0:
		return nil
	case len(b) < len(a):
		return b
	}
	return a
}

// runeSet is a set of runes: exact for ASCII, all-or-nothing above.
type runeSet struct {
	ascii    [utf8.RuneSelf]bool
	nonASCII bool
}

func (rs *runeSet) has(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0 && rs.ascii[r]
	}
	return rs.nonASCII
}

// reach bounds how far a match of an expression extends: at most budget of
// its runes lie outside unbounded repetitions, and the runes inside them all
// belong to free. A match therefore never holds more than budget runes that
// are not in free.
type reach struct {
	budget int
	free   runeSet
}

// reachOf computes the reach of re.
func reachOf(re *syntax.Regexp) reach {
	var rc reach
	rc.budget = rc.walk(re)
	return rc
}

// walk returns the budget of re and adds the runes of its unbounded parts
// to rc.free.
func (rc *reach) walk(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpQuest:
		return rc.walk(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n = min(n+rc.walk(sub), maxBudget)
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			n = max(n, rc.walk(sub))
		}
		return n
	case syntax.OpStar, syntax.OpPlus:
		addRunes(&rc.free, re.Sub[0])
		return 0
	case syntax.OpRepeat:
		if re.Max < 0 {
			addRunes(&rc.free, re.Sub[0])
			return 0
		}
		return min(re.Max*rc.walk(re.Sub[0]), maxBudget)
	}
	return 0
}

// addRunes adds to set every rune a match of re may contain.
func addRunes(set *runeSet, re *syntax.Regexp) {
	add := func(r rune) {
		if r < utf8.RuneSelf {
			set.ascii[r] = true
		} else {
			set.nonASCII = true
		}
	}
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				for _, v := range foldOrbit(r) {
					add(v)
				}
			} else {
				add(r)
			}
		}
	case syntax.OpCharClass:
		for i := 0; i < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
				add(r)
			}
			if hi >= utf8.RuneSelf {
				add(hi)
			}
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		for r := range rune(utf8.RuneSelf) {
			set.ascii[r] = true
		}
		set.nonASCII = true
	default:
		for _, sub := range re.Sub {
			addRunes(set, sub)
		}
	}
}
