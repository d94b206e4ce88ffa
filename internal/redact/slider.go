package redact

import "unicode/utf8"

// slider computes reach bounds for positions visited in increasing order,
// in time linear in the text overall. It steps over s rune by rune the way
// Go's engine decodes it (positions handed to it are rune starts in that
// decoding: literal boundaries).
type slider struct {
	rc *reach
	s  string
	// Forward state: [flo, fhi) holds fn runes outside the free set, at
	// most the budget, and fhi is the forward bound of flo.
	flo, fhi, fn int
	// Backward state: [blo, bhi) holds bn such runes and blo is the lowest
	// rune start for which that count stays within the budget.
	blo, bhi, bn int
}

func newSlider(rc *reach, s string) *slider { return &slider{rc: rc, s: s} }

// runeAt returns the rune at s[i] and its width, decoded as the engine does.
func runeAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// forward returns the first offset at or after from that a match holding
// s[from] cannot reach: the start of the (budget+1)-th rune outside the
// free set, or len(s). from must not decrease between calls.
func (sl *slider) forward(from int) int {
	if from >= sl.fhi {
		// Nothing counted is still in range: start afresh.
		sl.flo, sl.fhi, sl.fn = from, from, 0
	}
	for sl.flo < from {
		r, w := runeAt(sl.s, sl.flo)
		if sl.flo < sl.fhi && !sl.rc.free.has(r) {
			sl.fn--
		}
		sl.flo += w
	}
	if sl.fhi < sl.flo {
		sl.fhi, sl.fn = sl.flo, 0
	}
	for sl.fhi < len(sl.s) {
		r, w := runeAt(sl.s, sl.fhi)
		if !sl.rc.free.has(r) {
			if sl.fn == sl.rc.budget {
				break
			}
			sl.fn++
		}
		sl.fhi += w
	}
	return sl.fhi
}

// backward returns the lowest offset at which a match that reaches to can
// start. to must not decrease between calls.
func (sl *slider) backward(to int) int {
	for sl.bhi < to {
		r, w := runeAt(sl.s, sl.bhi)
		if !sl.rc.free.has(r) {
			sl.bn++
		}
		sl.bhi += w
	}
	for sl.bn > sl.rc.budget {
		r, w := runeAt(sl.s, sl.blo)
		if !sl.rc.free.has(r) {
			sl.bn--
		}
		sl.blo += w
	}
	return sl.blo
}

// runesAfter returns the offset n runes after q, plus windowMargin bytes
// (the rune after a match, for boundary assertions), capped at len(s).
func runesAfter(s string, q, n int) int {
	i := q
	for ; n > 0 && i < len(s); n-- {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return min(i+windowMargin, len(s))
}
