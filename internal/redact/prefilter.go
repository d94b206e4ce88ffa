package redact

import (
	"slices"
	"strings"
)

// scanner is an Aho-Corasick automaton over the rules' keywords and the
// literals of their match plans (plan.go). It folds ASCII case while it
// reads, so no lowercase copy of the text is made; literals that must match
// case-sensitively are checked against the text when they are found. One
// pass over a text yields the rules whose keywords occur in it and where
// each plan's literals occur.
type scanner struct {
	class  [256]uint8 // byte -> symbol class (0 = byte in no pattern)
	nclass int
	// delta[state*nclass + class] is the next state's row offset
	// (state*nclass) times two, plus one when patterns end in it: a
	// complete DFA that tells at once whether output needs a look.
	delta   []int32
	outputs [][]int32 // state -> patterns that end here
	pats    []pattern
	nrules  int
}

// pattern is one string the scanner looks for.
type pattern struct {
	text    string // lowercase
	exact   string // when set, the bytes must equal it (case-sensitive literal)
	rule    int32
	keyword bool // a rule keyword; otherwise a plan literal
}

// occurrence is a plan literal found at s[start:end] for rule.
type occurrence struct {
	rule       int32
	start, end int32
}

// newScanner builds the automaton. keywords[i] lists the lowercase keywords
// of rule i; lits[i] the literals of its plan (nil for none).
func newScanner(keywords [][]string, lits []litSet) *scanner {
	k := &scanner{nrules: len(keywords)}
	for ri, kws := range keywords {
		for _, kw := range kws {
			k.pats = append(k.pats, pattern{text: kw, rule: int32(ri), keyword: true})
		}
	}
	for ri, set := range lits {
		for _, l := range set {
			p := pattern{text: lowerASCII(l.s), rule: int32(ri)}
			if !l.fold && hasASCIILetter(l.s) {
				p.exact = l.s
			}
			k.pats = append(k.pats, p)
		}
	}
	next := uint8(1)
	for _, p := range k.pats {
		for i := 0; i < len(p.text); i++ {
			if c := p.text[i]; k.class[c] == 0 {
				k.class[c] = next
				next++
			}
		}
	}
	// Fold upper-case ASCII onto the lower-case class.
	for c := 'A'; c <= 'Z'; c++ {
		k.class[c] = k.class[c+'a'-'A']
	}
	k.nclass = int(next)

	k.delta, k.outputs = buildAutomaton(k.pats, &k.class, k.nclass)
	return k
}

// buildAutomaton returns the complete DFA of the patterns (see
// scanner.delta) and each state's outputs. It works in one dense table of
// exactly the automaton's size: the patterns, sorted by their class
// strings, give the number of states (the distinct prefixes) in advance
// and the states breadth-first, depth by depth; in that order a state's
// failure state comes before it, so each row is completed in place from
// its failure state's finished row. A hook process builds it on every
// start: the table's memory, cleared once, is most of the cost.
func buildAutomaton(pats []pattern, class *[256]uint8, nc int) ([]int32, [][]int32) {
	keys := make([]string, len(pats))
	maxLen := 0
	for i, p := range pats {
		b := make([]byte, len(p.text))
		for j := 0; j < len(p.text); j++ {
			b[j] = class[p.text[j]]
		}
		keys[i] = string(b)
		maxLen = max(maxLen, len(b))
	}
	order := make([]int, len(pats))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return strings.Compare(keys[x], keys[y]) })
	// The distinct non-empty prefixes of the sorted keys.
	n := 1
	for i, pi := range order {
		lcp := 0
		if i > 0 {
			prev := keys[order[i-1]]
			for lcp < len(prev) && lcp < len(keys[pi]) && prev[lcp] == keys[pi][lcp] {
				lcp++
			}
		}
		n += len(keys[pi]) - lcp
	}
	delta := make([]int32, n*nc)
	outs := make([][]int32, n)
	// The trie, depth by depth: cur[i] is the state of pattern order[i]'s
	// prefix of the depth under way.
	cur := make([]int32, len(order))
	next := int32(1)
	for d := 1; d <= maxLen; d++ {
		prevKey, prevState := "", int32(-1)
		for i, pi := range order {
			key := keys[pi]
			if len(key) < d {
				continue
			}
			if prevState >= 0 && key[:d] == prevKey {
				cur[i] = prevState
			} else {
				cell := int(cur[i])*nc + int(key[d-1])
				if delta[cell] == 0 {
					delta[cell] = next
					next++
				}
				cur[i] = delta[cell]
			}
			prevKey, prevState = key[:d], cur[i]
			if len(key) == d {
				outs[cur[i]] = appendUnique(outs[cur[i]], int32(pi))
			}
		}
	}
	// Failure links and the complete DFA, breadth-first (increasing
	// state numbers): a row's zero cells take its failure state's.
	fail := make([]int32, n)
	for s := 0; s < n; s++ {
		row := delta[s*nc : (s+1)*nc]
		if s > 0 {
			for _, r := range outs[fail[s]] {
				outs[s] = appendUnique(outs[s], r)
			}
		}
		frow := delta[int(fail[s])*nc : (int(fail[s])+1)*nc]
		for c := 1; c < nc; c++ {
			t := row[c]
			switch {
			case t > int32(s):
				// A trie edge (children are numbered after their parent).
				if s > 0 {
					fail[t] = frow[c]
				}
			case s > 0:
				row[c] = frow[c]
			}
		}
	}
	// State numbers become row offsets with the output flag.
	for i, t := range delta {
		v := t * int32(nc) * 2
		if outs[t] != nil {
			v++
		}
		delta[i] = v
	}
	return delta, outs
}

func appendUnique(xs []int32, x int32) []int32 {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// scan marks in hit (len >= nrules) every rule with a keyword in s and,
// when occ is not nil, appends to it the plan literal occurrences in the
// order their ends are found.
func (k *scanner) scan(s string, hit []bool, occ *[]occurrence) {
	row := int32(0)
	nc := int32(k.nclass)
	for i := 0; i < len(s); i++ {
		v := k.delta[row+int32(k.class[s[i]])]
		row = v >> 1
		if v&1 == 0 {
			continue
		}
		for _, pi := range k.outputs[row/nc] {
			p := &k.pats[pi]
			if p.keyword {
				hit[p.rule] = true
				continue
			}
			if occ == nil {
				continue
			}
			st := i + 1 - len(p.text)
			if p.exact != "" && s[st:i+1] != p.exact {
				continue
			}
			*occ = append(*occ, occurrence{rule: p.rule, start: int32(st), end: int32(i + 1)})
		}
	}
}

// hasKeyword reports whether s contains a keyword of any rule.
func (k *scanner) hasKeyword(s string) bool {
	row := int32(0)
	nc := int32(k.nclass)
	for i := 0; i < len(s); i++ {
		v := k.delta[row+int32(k.class[s[i]])]
		row = v >> 1
		if v&1 == 0 {
			continue
		}
		for _, pi := range k.outputs[row/nc] {
			if k.pats[pi].keyword {
				return true
			}
		}
	}
	return false
}

func hasASCIILetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}
