package redact

import "regexp/syntax"

// Pre-checks.
//
// X, the part of an anchored rule's expression after its prefix literal,
// can be long (gitleaks' generic rules allow a 150-byte secret) and Go's
// engine then steps an NFA with a thread per counter value. A pre-check is X
// relaxed to a short expression that a prefix of every match of X matches;
// where it fails X fails too, and most literal occurrences fail it within a
// few bytes on a short input, where the engine backtracks cheaply.

// maxPreRunes bounds the length of a pre-check's matches.
const maxPreRunes = 64

// preCheck returns the pre-check for X and its maximum match length (in
// runes): X relaxed to at most maxPreRunes runes. It returns nil when X is
// that short already.
func preCheck(x *syntax.Regexp) (*syntax.Regexp, int) {
	pre := relax(x, maxPreRunes)
	if pre == x {
		return nil, 0
	}
	return pre, maxRunes(pre)
}

// relax returns an expression of at most budget runes that a prefix of
// every match of re matches: repetitions keep at most their minimum count,
// literals and concatenations are cut, optional parts dropped.
func relax(re *syntax.Regexp, budget int) *syntax.Regexp {
	if n := maxRunes(re); n >= 0 && n <= budget {
		return re
	}
	empty := &syntax.Regexp{Op: syntax.OpEmptyMatch}
	switch re.Op {
	case syntax.OpLiteral:
		return &syntax.Regexp{Op: syntax.OpLiteral, Flags: re.Flags, Rune: re.Rune[:budget]}
	case syntax.OpStar, syntax.OpQuest:
		return empty
	case syntax.OpPlus:
		return relax(re.Sub[0], budget)
	case syntax.OpRepeat:
		sub := re.Sub[0]
		m := maxRunes(sub)
		if re.Min == 0 {
			return empty
		}
		if m < 0 || m > budget {
			return relax(sub, budget)
		}
		if m == 0 {
			return sub
		}
		n := min(re.Min, budget/m)
		if n == 0 {
			return empty
		}
		return &syntax.Regexp{Op: syntax.OpRepeat, Flags: re.Flags, Min: n, Max: n, Sub: []*syntax.Regexp{sub}}
	case syntax.OpCapture:
		return relax(re.Sub[0], budget)
	case syntax.OpConcat:
		var subs []*syntax.Regexp
		used := 0
		for _, sub := range re.Sub {
			if m := maxRunes(sub); m >= 0 && used+m <= budget {
				subs = append(subs, sub)
				used += m
				continue
			}
			subs = append(subs, relax(sub, budget-used))
			break
		}
		return &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: subs}
	case syntax.OpAlternate:
		subs := make([]*syntax.Regexp, len(re.Sub))
		for i, sub := range re.Sub {
			subs[i] = relax(sub, budget)
		}
		return &syntax.Regexp{Op: syntax.OpAlternate, Flags: re.Flags, Sub: subs}
	}
	return re
}

// maxRunes returns the most runes a match of re holds, or -1 when that is
// unbounded.
func maxRunes(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpQuest:
		return maxRunes(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			k := maxRunes(sub)
			if k < 0 {
				return -1
			}
			n = min(n+k, maxBudget)
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			k := maxRunes(sub)
			if k < 0 {
				return -1
			}
			n = max(n, k)
		}
		return n
	case syntax.OpStar, syntax.OpPlus:
		if maxRunes(re.Sub[0]) == 0 {
			return 0
		}
		return -1
	case syntax.OpRepeat:
		k := maxRunes(re.Sub[0])
		if k == 0 {
			return 0
		}
		if re.Max < 0 || k < 0 {
			return -1
		}
		return min(re.Max*k, maxBudget)
	}
	return 0
}
