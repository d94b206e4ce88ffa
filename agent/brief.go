package agent

import (
	"bytes"
	"io"
)

const (
	// BriefAbove is the length over which ForEachBriefLine shortens a
	// line's long strings before passing it on.
	BriefAbove = 4 << 20
	// briefString is the length (raw, escapes included) over which a
	// JSON string of such a line is shortened.
	briefString = 1 << 20
	// briefKeep is how much of each end of a shortened string is kept.
	briefKeep = 128 << 10
)

// ForEachBriefLine is ForEachLine for a scan that reads the structure of
// lines, not their long texts: a line longer than BriefAbove is passed
// with every JSON string value (or key) longer than 1 MiB shortened to its
// first and last 128 KiB, cut between escape sequences, so that the line
// stays the JSON it was with the same structure. Such a line is never
// held whole: it is shortened as it is read. Shorter lines are passed as
// they are.
func ForEachBriefLine(r io.Reader, fn func(line []byte) error) (consumed int64, lines int, err error) {
	return forEachLine(r, func(line []byte, _ int64) error { return fn(line) }, true)
}

// ForEachBriefLineAt is ForEachBriefLine with each line's start: its
// offset in what r reads.
func ForEachBriefLineAt(r io.Reader, fn func(line []byte, start int64) error) (consumed int64, lines int, err error) {
	return forEachLine(r, fn, true)
}

// Briefer shortens the long strings of a line fed to it in pieces, as
// ForEachBriefLine does; its zero value is ready to use. Write feeds the
// next piece and Line returns the line.
type Briefer struct {
	out   []byte
	inStr bool
	esc   int    // escape state of the next byte (see escStep)
	pend  []byte // content of the string under way while it is short
	long  bool   // the string under way is long: its head is in out
	tail  []byte // the last bytes of a long string's content
	tEsc  int    // escape state at tail[0]
}

// escStep returns the escape state after byte c in state st: 0 outside
// an escape, 5 after a backslash, 4..1 hex digits of \uXXXX to come.
func escStep(st int, c byte) int {
	switch {
	case st == 5 && c == 'u':
		return 4
	case st == 5:
		return 0
	case st > 0:
		return st - 1
	case c == '\\':
		return 5
	}
	return 0
}

// safeFrom returns the first index at or after at in b (whose escape
// state at b[0] is st) where no escape sequence is under way.
func safeFrom(b []byte, st, at int) int {
	for i := 0; i < len(b); i++ {
		if i >= at && st == 0 {
			return i
		}
		st = escStep(st, b[i])
	}
	return len(b)
}

// stateAt returns the escape state at b[at], b[0] being in state st.
func stateAt(b []byte, st, at int) int {
	for _, c := range b[:at] {
		st = escStep(st, c)
	}
	return st
}

// Write feeds the next piece of the line.
func (w *Briefer) Write(p []byte) {
	for len(p) > 0 {
		if !w.inStr {
			i := bytes.IndexByte(p, '"')
			if i < 0 {
				w.out = append(w.out, p...)
				return
			}
			w.out = append(w.out, p[:i+1]...)
			p = p[i+1:]
			w.inStr, w.esc, w.pend, w.long = true, 0, w.pend[:0], false
			continue
		}
		// Inside a string: find its closing quote.
		end := -1
		i := 0
		for i < len(p) {
			if w.esc == 0 {
				j := bytes.IndexAny(p[i:], "\"\\")
				if j < 0 {
					i = len(p)
					break
				}
				i += j
				if p[i] == '"' {
					end = i
					break
				}
			}
			w.esc = escStep(w.esc, p[i])
			i++
		}
		content := p
		if end >= 0 {
			content = p[:end]
		}
		w.content(content)
		if end < 0 {
			return
		}
		w.closeString()
		p = p[end+1:]
	}
}

// content adds content bytes of the string under way.
func (w *Briefer) content(b []byte) {
	if !w.long {
		w.pend = append(w.pend, b...)
		if len(w.pend) <= briefString {
			return
		}
		w.long = true
		w.out = append(w.out, w.pend[:safeFrom(w.pend, 0, briefKeep)]...)
		start := len(w.pend) - briefKeep
		w.tEsc = stateAt(w.pend, 0, start)
		w.tail = append(w.tail[:0], w.pend[start:]...)
		w.pend = w.pend[:0]
		return
	}
	w.tail = append(w.tail, b...)
	if len(w.tail) > 4*briefKeep {
		drop := len(w.tail) - briefKeep
		w.tEsc = stateAt(w.tail, w.tEsc, drop)
		w.tail = append(w.tail[:0], w.tail[drop:]...)
	}
}

// closeString ends the string under way.
func (w *Briefer) closeString() {
	if w.long {
		at := safeFrom(w.tail, w.tEsc, max(0, len(w.tail)-briefKeep))
		w.out = append(w.out, w.tail[at:]...)
	} else {
		w.out = append(w.out, w.pend...)
	}
	w.out = append(w.out, '"')
	w.inStr = false
}

// Line returns the shortened line (an unclosed string is closed as it
// is).
func (w *Briefer) Line() []byte {
	if w.inStr {
		if w.long {
			w.closeString()
			w.out = w.out[:len(w.out)-1]
		} else {
			w.out = append(w.out, w.pend...)
		}
	}
	return w.out
}
