package redact

import "slices"

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

	// Build the trie as a dense table (0 = no edge; the root has no
	// incoming edges).
	nc := k.nclass
	maxStates := 1
	for _, p := range k.pats {
		maxStates += len(p.text)
	}
	trie := make([]int32, nc, maxStates*nc)
	outs := make([][]int32, 1, maxStates)
	for pi, p := range k.pats {
		s := int32(0)
		for i := 0; i < len(p.text); i++ {
			c := int(k.class[p.text[i]])
			t := trie[int(s)*nc+c]
			if t == 0 {
				t = int32(len(outs))
				trie = append(trie, make([]int32, nc)...)
				outs = append(outs, nil)
				trie[int(s)*nc+c] = t
			}
			s = t
		}
		outs[s] = appendUnique(outs[s], int32(pi))
	}

	// Breadth-first construction of failure links and the complete DFA.
	n := len(outs)
	k.delta = make([]int32, n*nc)
	fail := make([]int32, n)
	queue := make([]int32, 0, n)
	order := []int32{0} // states in breadth-first order
	for c := 1; c < nc; c++ {
		if t := trie[c]; t != 0 {
			k.delta[c] = t
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		order = append(order, s)
		for _, r := range outs[fail[s]] {
			outs[s] = appendUnique(outs[s], r)
		}
		for c := 1; c < nc; c++ {
			if t := trie[int(s)*nc+c]; t != 0 {
				fail[t] = k.delta[int(fail[s])*nc+c]
				k.delta[int(s)*nc+c] = t
				queue = append(queue, t)
			} else {
				k.delta[int(s)*nc+c] = k.delta[int(fail[s])*nc+c]
			}
		}
	}
	// Renumber the states breadth-first, so the shallow states most texts
	// keep visiting share few cache lines, and turn state numbers into row
	// offsets with the output flag.
	renum := make([]int32, n)
	for i, st := range order {
		renum[st] = int32(i)
	}
	delta := make([]int32, len(k.delta))
	k.outputs = make([][]int32, n)
	for _, st := range order {
		to := int(renum[st]) * k.nclass
		for c := 0; c < k.nclass; c++ {
			t := k.delta[int(st)*k.nclass+c]
			v := renum[t] * int32(k.nclass) * 2
			if outs[t] != nil {
				v++
			}
			delta[to+c] = v
		}
		k.outputs[renum[st]] = outs[st]
	}
	k.delta = delta
	return k
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
