package redact

// keywordIndex is an Aho-Corasick automaton over lowercase keywords that
// folds ASCII case while it reads, so no lowercase copy of the text is made.
// One pass over a text yields the set of rules whose keywords occur in it.
type keywordIndex struct {
	class   [256]uint8 // byte -> symbol class (0 = byte in no keyword)
	nclass  int
	delta   []int32   // state*nclass + class -> next state (complete DFA)
	outputs [][]int32 // state -> rule indices whose keyword ends here
	nrules  int
}

// newKeywordIndex builds the automaton. keywords[i] lists the lowercase
// keywords of rule i; rules without keywords are not represented.
func newKeywordIndex(keywords [][]string) *keywordIndex {
	k := &keywordIndex{nrules: len(keywords)}
	next := uint8(1)
	for _, kws := range keywords {
		for _, kw := range kws {
			for i := 0; i < len(kw); i++ {
				c := kw[i]
				if k.class[c] == 0 {
					k.class[c] = next
					next++
				}
			}
		}
	}
	// Fold upper-case ASCII onto the lower-case class.
	for c := 'A'; c <= 'Z'; c++ {
		k.class[c] = k.class[c+'a'-'A']
	}
	k.nclass = int(next)

	// Build the trie.
	trie := []map[uint8]int32{{}}
	outs := [][]int32{nil}
	for ri, kws := range keywords {
		for _, kw := range kws {
			s := int32(0)
			for i := 0; i < len(kw); i++ {
				c := k.class[kw[i]]
				t, ok := trie[s][c]
				if !ok {
					t = int32(len(trie))
					trie = append(trie, map[uint8]int32{})
					outs = append(outs, nil)
					trie[s][c] = t
				}
				s = t
			}
			outs[s] = appendUnique(outs[s], int32(ri))
		}
	}

	// Breadth-first construction of failure links and the complete DFA.
	n := len(trie)
	k.delta = make([]int32, n*k.nclass)
	fail := make([]int32, n)
	queue := make([]int32, 0, n)
	for c := 1; c < k.nclass; c++ {
		if t, ok := trie[0][uint8(c)]; ok {
			k.delta[c] = t
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, r := range outs[fail[s]] {
			outs[s] = appendUnique(outs[s], r)
		}
		for c := 1; c < k.nclass; c++ {
			if t, ok := trie[s][uint8(c)]; ok {
				fail[t] = k.delta[int(fail[s])*k.nclass+c]
				k.delta[int(s)*k.nclass+c] = t
				queue = append(queue, t)
			} else {
				k.delta[int(s)*k.nclass+c] = k.delta[int(fail[s])*k.nclass+c]
			}
		}
	}
	k.outputs = outs
	return k
}

func appendUnique(xs []int32, x int32) []int32 {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// match marks in hit (len >= nrules) every rule with a keyword in s.
func (k *keywordIndex) match(s string, hit []bool) {
	state := int32(0)
	nc := int32(k.nclass)
	for i := 0; i < len(s); i++ {
		state = k.delta[state*nc+int32(k.class[s[i]])]
		if out := k.outputs[state]; out != nil {
			for _, r := range out {
				hit[r] = true
			}
		}
	}
}

// ends appends to dst the index just past every keyword occurrence in s.
func (k *keywordIndex) ends(s string, dst []int) []int {
	state := int32(0)
	nc := int32(k.nclass)
	for i := 0; i < len(s); i++ {
		state = k.delta[state*nc+int32(k.class[s[i]])]
		if k.outputs[state] != nil {
			dst = append(dst, i+1)
		}
	}
	return dst
}
