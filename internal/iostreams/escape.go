package iostreams

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape makes text that may come from someone else (prompts, transcripts,
// error messages: checkpoints arrive from teammates) safe to print on a
// terminal: control characters other than newline and tab (ESC and so
// every escape sequence, CR, backspace, DEL, the C1 controls), the
// bidirectional overrides and isolates that reorder what is shown
// ("Trojan Source"), and bytes that are not UTF-8 are written as Go
// escapes (\x1b, \r, \u202e, \xff). Everything else, quotes and
// backslashes included, is kept as it is, so ordinary text reads the same.
// It is the one escaper of the commands that print stored text.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case unsafeRune(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// needsEscape reports whether Escape would change s.
func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			return true
		}
		i += size
	}
	return false
}

// unsafeRune reports whether r must not reach a terminal as it is.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n', r == '\t':
		return false
	case unicode.IsControl(r):
		return true
	case r == '\u200e', r == '\u200f', r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// Printf formats like fmt.Printf and writes the result to w through
// Escape; a nil w gets nothing. It is how progress and warning lines that
// name someone else's text (paths, refs, session IDs, git's or a remote's
// answer) reach a terminal.
func Printf(w io.Writer, format string, a ...any) {
	if w != nil {
		io.WriteString(w, Escape(fmt.Sprintf(format, a...)))
	}
}
