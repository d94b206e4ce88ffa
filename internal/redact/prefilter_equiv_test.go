package redact

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// referenceScanner is the automaton built as it was before buildAutomaton
// (a trie, then a breadth-first DFA, then states renumbered): the
// equivalence test checks the new construction against it.
func referenceScanner(keywords [][]string, lits []litSet) *scanner {
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

// TestBuildAutomatonMatchesReference scans texts with the default rules'
// scanner and the reference construction: the same rules hit, the same
// literal occurrences found.
func TestBuildAutomatonMatchesReference(t *testing.T) {
	t.Parallel()
	r, err := New(Options{Patterns: []string{`zz[0-9]{4}qq`}})
	if err != nil {
		t.Fatal(err)
	}
	kws := make([][]string, len(r.rules))
	lits := make([]litSet, len(r.rules))
	for i, ru := range r.rules {
		kws[i] = ru.keywords
		lits[i] = ru.plan.lits
	}
	ref := referenceScanner(kws, lits)
	got := newScanner(kws, lits)
	if len(got.outputs) != len(ref.outputs) || got.nclass != ref.nclass {
		t.Fatalf("states %d/%d, classes %d/%d", len(got.outputs), len(ref.outputs), got.nclass, ref.nclass)
	}
	// Texts made of the patterns' own pieces, so that keywords, literals
	// and their overlaps occur.
	rng := rand.New(rand.NewPCG(1, 2))
	var pieces []string
	for _, p := range ref.pats {
		pieces = append(pieces, p.text, p.exact)
	}
	pieces = append(pieces, " ", "=", "\n", "\"", "AKIA", "ghp_", "xoxb-", "-----BEGIN", "Secret", "TOKEN")
	for i := 0; i < 3000; i++ {
		var b []byte
		for j := rng.IntN(12); j >= 0; j-- {
			p := pieces[rng.IntN(len(pieces))]
			if rng.IntN(3) == 0 && len(p) > 1 {
				p = p[:1+rng.IntN(len(p)-1)]
			}
			b = append(b, p...)
		}
		text := string(b)
		h1, h2 := make([]bool, ref.nrules), make([]bool, got.nrules)
		var o1, o2 []occurrence
		ref.scan(text, h1, &o1)
		got.scan(text, h2, &o2)
		key := func(o occurrence) int64 { return int64(o.end)<<40 | int64(o.start)<<20 | int64(o.rule) }
		sort := func(os []occurrence) { slices.SortFunc(os, func(a, b occurrence) int { return int(key(a) - key(b)) }) }
		sort(o1)
		sort(o2)
		if !slices.Equal(h1, h2) || !slices.Equal(o1, o2) || ref.hasKeyword(text) != got.hasKeyword(text) {
			t.Fatalf("text %q: hits or occurrences differ:\n%v\n%v", text, o1, o2)
		}
	}
}
