package redact

import (
	"regexp"
	"regexp/syntax"
	"sync"
	"unicode/utf8"
)

// Match plans.
//
// Go's regexp engine has no DFA: an unanchored search costs a full NFA step
// per byte of text, and rules whose keywords are short and common ("sk",
// "key", "token") would otherwise run over most of a transcript. From each
// rule's parsed expression the engine derives one of three plans (literals.go
// does the analysis):
//
//   - anchored: every match starts with one of a few literals, possibly after
//     a leading lazy repetition of a character class such as gitleaks'
//     generic `[\w.-]{0,50}?` prefix. The rest of the expression (X) is
//     compiled anchored and tried only at occurrences of those literals, in
//     text order, reproducing the leftmost-first, non-overlapping semantics
//     of FindAll: the first occurrence at or after the end of the previous
//     match where X matches yields the next match, and the lazy prefix
//     starts it as far left as its class, its count and the previous match
//     allow. Leading assertions (\b, ^) see the real preceding rune: the
//     context variant of X consumes it first. A byte-speed gate (gate.go)
//     and a short pre-check expression (precheck.go) rule out most
//     occurrences before X runs. Where the occurrences that pass the gate
//     are crowded (adversarial text), the whole expression runs instead.
//   - windows: every match contains one of a few literals and its reach is
//     bounded (at most budget runes outside unbounded repetitions, those
//     made of known runes; slider.go). The expression runs on merged
//     windows that cover every match around each literal occurrence plus a
//     margin, so boundary assertions and UTF-8 decoding see the same bytes
//     as in the whole text and the windows yield exactly the whole-text
//     matches.
//   - whole: the expression runs over the whole text (two gitleaks rules
//     whose matches need no literal; keywords still gate them).
//
// TestPlansMatchWholeText and FuzzPlansMatchWholeText check that every rule
// finds exactly what a whole-text run finds.

// planKind selects how a rule's expression is run.
type planKind uint8

const (
	planWhole planKind = iota
	planAnchored
	planWindows
)

// String names the plan kind for test output.
func (k planKind) String() string {
	return [...]string{"whole", "anchored", "windows"}[k]
}

// minLitScore is the shortest literal worth searching for.
const minLitScore = 2

// windowMargin is the number of bytes kept around a window or an anchored
// run beyond the bytes a match can reach: room for the rune before and after
// a match (boundary assertions) and for UTF-8 decoding to fall into step.
const windowMargin = 8

// plan is how one rule's expression runs; see the comment above.
type plan struct {
	kind planKind
	lits litSet // prefix literals (anchored) or factor literals (windows)
	// reach bounds X from its start (anchored), or a match from the end of
	// a literal occurrence (windows).
	reach reach
	// before bounds a match from the start of a literal occurrence
	// backwards (windows).
	before reach
	// lazy is the class of a leading lazy repetition (anchored only), nil
	// when there is none; lazyMax is its maximum count, -1 when unbounded.
	lazy    *runeClass
	lazyMax int
	// anchored holds X compiled for anchored runs; compiled on first use,
	// since a process usually runs few of the rules.
	anchored *anchoredX
	// gate rules out literal occurrences at byte speed (gate.go).
	gate gate
}

// anchoredX is the rest of an expression (X) compiled on first use:
// atStart is ^(?:X) for a match at offset 0; withContext is ^(?s:.)(?:X),
// run from the rune before the candidate position. Both are nil when the
// source does not compile to the expected groups (never seen; the rule then
// runs on the whole text).
//
// pre, when set, is a leading part of X of at most preRunes runes (its
// first elements), compiled like withContext: where it does not match, X
// cannot either. It runs on a short input, where Go's engine backtracks
// instead of stepping an NFA with a thread per counter value, and rules out
// most candidates (a generic rule's keyword not followed by an assignment)
// at a fraction of X's cost.
//
// The parsed forms are printed and compiled on first use: printing them
// (syntax.Regexp.String) costs more than parsing, and a process runs few
// rules.
type anchoredX struct {
	x, preX              *syntax.Regexp // preX nil: no pre-check
	groups, preRunes     int
	once                 sync.Once
	atStart, withContext *regexp.Regexp
	pre                  *regexp.Regexp
}

func (a *anchoredX) get() (atStart, withContext *regexp.Regexp) {
	a.once.Do(func() {
		src := a.x.String()
		s, err1 := regexp.Compile(`^(?:` + src + `)`)
		c, err2 := regexp.Compile(`^(?s:.)(?:` + src + `)`)
		if err1 == nil && err2 == nil && s.NumSubexp() == a.groups && c.NumSubexp() == a.groups {
			a.atStart, a.withContext = s, c
		}
		if a.preX != nil {
			a.pre, _ = regexp.Compile(`^(?s:.)(?:` + a.preX.String() + `)`)
		}
	})
	return a.atStart, a.withContext
}

// planFor derives the plan of an expression with numSubexp capture groups.
func planFor(pattern string, numSubexp int) plan {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return plan{}
	}
	x, lazy, lazyMax := re, (*runeClass)(nil), 0
	if re.Op == syntax.OpConcat && len(re.Sub) >= 2 {
		if set, n, ok := lazyClassRepeat(re.Sub[0]); ok {
			lazy, lazyMax = set, n
			x = &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: re.Sub[1:]}
			if len(re.Sub) == 2 {
				x = re.Sub[1]
			}
		}
	}
	an := analyzer{}
	if info := an.analyze(x); score(info.prefix) >= minLitScore {
		// X.String() parses back to an expression equivalent to X; its
		// capture groups are the expression's, since a lazy class prefix
		// has none.
		if countCaptures(x) == numSubexp {
			preX, preRunes := preCheck(x)
			return plan{kind: planAnchored, lits: info.prefix, reach: reachOf(x), lazy: lazy, lazyMax: lazyMax,
				anchored: &anchoredX{x: x, groups: numSubexp, preX: preX, preRunes: preRunes},
				gate:     gateFor(an, x, info.prefix)}
		}
	}
	if lits, before, after, ok := splitFactor(an, re); ok {
		return plan{kind: planWindows, lits: lits, reach: after, before: before}
	}
	if info := an.analyze(re); score(info.factor) >= minLitScore {
		if rc := reachOf(re); rc.budget < maxBudget {
			return plan{kind: planWindows, lits: info.factor, reach: rc, before: rc}
		}
	}
	return plan{}
}

// splitFactor finds, in a top-level concatenation, the run of elements with
// the most selective exact literals and returns them with the reach of the
// elements before the run (backwards from a literal's start) and after it
// (from a literal's end). It reports false when there is no such run or one
// of the reaches is unbounded.
func splitFactor(an analyzer, re *syntax.Regexp) (lits litSet, before, after reach, ok bool) {
	if re.Op != syntax.OpConcat {
		return nil, reach{}, reach{}, false
	}
	subs := re.Sub
	bi, bj, bestScore := 0, 0, minLitScore-1
	for i := range subs {
		run := litSet{{}}
		for j := i; j < len(subs); j++ {
			in := an.analyze(subs[j])
			if in.exact == nil {
				break
			}
			if run = cross(run, in.exact); run == nil {
				break
			}
			if sc := score(run); sc > bestScore && sc <= maxLitLen {
				bi, bj, bestScore, lits = i, j+1, sc, run
			}
		}
	}
	if lits == nil {
		return nil, reach{}, reach{}, false
	}
	before = reachOf(&syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: subs[:bi]})
	after = reachOf(&syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: subs[bj:]})
	if before.budget >= maxBudget || after.budget >= maxBudget {
		return nil, reach{}, reach{}, false
	}
	return lits, before, after, true
}

func countCaptures(re *syntax.Regexp) int {
	n := 0
	if re.Op == syntax.OpCapture {
		n++
	}
	for _, sub := range re.Sub {
		n += countCaptures(sub)
	}
	return n
}

// lazyClassRepeat reports whether re is a lazy repetition, from zero, of a
// character class, and returns the class and the maximum count.
func lazyClassRepeat(re *syntax.Regexp) (*runeClass, int, bool) {
	if re.Flags&syntax.NonGreedy == 0 || len(re.Sub) != 1 || re.Sub[0].Op != syntax.OpCharClass {
		return nil, 0, false
	}
	n := 0
	switch {
	case re.Op == syntax.OpStar:
		n = -1
	case re.Op == syntax.OpRepeat && re.Min == 0:
		n = re.Max
	default:
		return nil, 0, false
	}
	cls := &runeClass{ranges: re.Sub[0].Rune}
	for i := 0; i < len(cls.ranges); i += 2 {
		for r := cls.ranges[i]; r <= cls.ranges[i+1] && r < utf8.RuneSelf; r++ {
			cls.ascii[r] = true
		}
	}
	return cls, n, true
}

// runeClass is a character class: sorted inclusive rune ranges, with a
// table for ASCII.
type runeClass struct {
	ranges []rune
	ascii  [utf8.RuneSelf]bool
}

func (c *runeClass) has(r rune) bool {
	if r < utf8.RuneSelf {
		return c.ascii[r]
	}
	for i := 0; i < len(c.ranges); i += 2 {
		if c.ranges[i] <= r && r <= c.ranges[i+1] {
			return true
		}
	}
	return false
}

// lazyStart returns where a match whose rest starts at q begins: as far
// left as the leading lazy class repeats (at most lazyMax runes) without
// passing lo. Runes are decoded backwards, which agrees with the forward
// decoding of the engine: both see a valid rune exactly when its lead byte
// starts a complete encoding.
func (p *plan) lazyStart(s string, q, lo int) int {
	st, n := q, 0
	for st > lo && (p.lazyMax < 0 || n < p.lazyMax) {
		r, w := rune(s[st-1]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeLastRuneInString(s[:st])
		}
		if st-w < lo || !p.lazy.has(r) {
			break
		}
		st -= w
		n++
	}
	return st
}

// anchoredAt returns the submatch indices (in s) of X's preferred match
// starting exactly at q, or nil, and the number of bytes of s it handed to
// X (zero when the pre-check ruled q out).
func (p *plan) anchoredAt(s string, q int, sl *slider) (m []int, scanned int) {
	atStart, withContext := p.anchored.get()
	k := 0
	if q > 0 {
		_, k = utf8.DecodeLastRuneInString(s[:q])
		// The pre-check reads X's leading part and one rune after it.
		if pre := p.anchored.pre; pre != nil {
			if !pre.MatchString(s[q-k : runesAfter(s, q, p.anchored.preRunes)]) {
				return nil, 0
			}
		}
	}
	var end int
	if p.reach.free == (runeSet{}) {
		// Bounded X: no need to track free runes.
		end = runesAfter(s, q, p.reach.budget)
	} else {
		end = min(sl.forward(q)+windowMargin, len(s))
	}
	// X reads s[lo:end]: from the rune before q (none at the start).
	lo := q - k
	scanned = end - lo
	if q == 0 {
		return atStart.FindStringSubmatchIndex(s[:end]), scanned
	}
	m = withContext.FindStringSubmatchIndex(s[lo:end])
	if m == nil {
		return nil, scanned
	}
	for i := range m {
		if m[i] >= 0 {
			m[i] += lo
		}
	}
	m[0] = q
	return m, scanned
}

// anchoredMatches returns, in order, the submatch indices FindAll would
// return for the rule's whole expression, given the occurrences of the
// plan's literals in s (occ, sorted by start). ok is false when the caller
// should run the whole expression instead: X did not compile, the
// candidates that pass the gate are crowded, or the runs of X have covered
// more text than anchoredScanFactor whole-text runs would.
func (p *plan) anchoredMatches(s string, occ []occurrence) (out [][]int, ok bool) {
	if a, _ := p.anchored.get(); a == nil {
		return nil, false
	}
	// Occurrences sharing a start are one candidate; it passes the gate
	// when one of its literals does.
	var cands []int
	for i := 0; i < len(occ); {
		q := int(occ[i].start)
		pass := false
		for ; i < len(occ) && int(occ[i].start) == q; i++ {
			pass = pass || p.gate.pass(s, int(occ[i].end))
		}
		if pass {
			cands = append(cands, q)
		}
	}
	if crowded(len(cands), s) {
		return nil, false
	}
	pos := 0
	sl := newSlider(&p.reach, s)
	budget := anchoredScanFactor*len(s) + anchoredScanSlack
	for _, q := range cands {
		if q < pos {
			continue
		}
		m, scanned := p.anchoredAt(s, q, sl)
		if budget -= scanned; budget < 0 {
			return nil, false
		}
		if m == nil {
			continue
		}
		if p.lazy != nil {
			m[0] = p.lazyStart(s, q, pos)
		}
		out = append(out, m)
		pos = m[1]
	}
	return out, true
}

// crowdedEvery is the literal density, one occurrence per this many bytes,
// above which trying the anchored rest at each occurrence costs more than
// one whole-text run (adversarial text such as "apikey=apikey=...").
const crowdedEvery = 16

// anchoredScanFactor and anchoredScanSlack bound the text one rule's
// anchored runs may cover, in bytes: anchoredScanFactor times the text's
// length plus anchoredScanSlack. A run of X covers the text from its
// candidate to the reach bound, which for X with an unbounded repetition
// (curl-auth-header's `.*?`) is the end of the line: many candidates on one
// long line would otherwise cost time quadratic in its length. Past the
// bound the whole expression runs once instead, so a rule costs at most a
// few whole-text runs.
const (
	anchoredScanFactor = 4
	anchoredScanSlack  = 1 << 16
)

// crowded reports whether n candidates are too dense in s for an anchored
// run.
func crowded(n int, s string) bool {
	return n > 64 && n > len(s)/crowdedEvery
}

// windows returns the merged windows of s around the literal occurrences
// occ (sorted by start; each a [start,end) pair). ok is false when the
// windows would cover most of s, so a whole-text run is cheaper.
func (p *plan) windows(s string, occ [][2]int) (out [][2]int, ok bool) {
	back, fwd := newSlider(&p.before, s), newSlider(&p.reach, s)
	maxEnd := 0
	for _, o := range occ {
		st := max(back.backward(o[0])-windowMargin, 0)
		maxEnd = max(maxEnd, o[1])
		en := min(fwd.forward(maxEnd)+windowMargin, len(s))
		if n := len(out); n > 0 && st <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], en)
			continue
		}
		out = append(out, [2]int{st, en})
	}
	covered := 0
	for _, w := range out {
		covered += w[1] - w[0]
	}
	return out, covered < len(s)/2
}
