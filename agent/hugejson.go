package agent

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// A hook payload or a tool result can carry one string of tens of
// megabytes (a command's whole output). Decoding it the usual way holds it
// three times (the input, the decoder's copy, the string); the functions
// here hold it once: the value's structure is decoded from a copy with the
// long strings left out, and each long string is unescaped where it lies.

// hugeString is the length from which a JSON string literal is decoded in
// place by DecodeJSONValueInPlace.
const hugeString = 1 << 20

// DecodeJSONValueInPlace decodes raw as DecodeJSONValue does, giving the
// same value, but unescapes every string literal longer than 1 MiB into
// raw's own bytes and returns it as a string sharing them: raw belongs to
// the value afterwards, and must be neither read as JSON nor changed.
// Input without such a literal (or with one that is an object key or not
// valid UTF-8) is decoded by DecodeJSONValue.
func DecodeJSONValueInPlace(raw []byte) (any, error) {
	spans := longStrings(raw, hugeString)
	if len(spans) == 0 {
		return DecodeJSONValue(raw)
	}
	// raw is valid JSON when the long literals are valid strings and the
	// rest, decoded below, is valid.
	for _, sp := range spans {
		if isKey(raw, sp[1]) || !validString(raw[sp[0]:sp[1]]) || !utf8.Valid(raw[sp[0]:sp[1]]) {
			return DecodeJSONValue(raw)
		}
	}
	// The structure, each long literal replaced by a placeholder that
	// names it. The placeholders carry a random tag: a short string of
	// raw's own can be any text, and one equal to a placeholder would
	// take the long string's place.
	var tag [16]byte
	_, _ = rand.Read(tag[:]) // never fails (crypto/rand)
	reduced := make([]byte, 0, 96*len(spans)+len(raw)-totalLen(spans))
	placeholders := make(map[string]int, len(spans))
	last := 0
	for i, sp := range spans {
		ph := fmt.Sprintf("\x00entire-long-string-%x-%d\x00", tag, i)
		placeholders[ph] = i
		reduced = append(reduced, raw[last:sp[0]]...)
		q, _ := json.Marshal(ph)
		reduced = append(reduced, q...)
		last = sp[1]
	}
	reduced = append(reduced, raw[last:]...)
	v, err := DecodeJSONValue(reduced)
	if err != nil {
		return nil, err
	}
	texts := make([]string, len(spans))
	for i, sp := range spans {
		b := unescapeInPlace(raw[sp[0]:sp[1]])
		texts[i] = unsafe.String(unsafe.SliceData(b), len(b))
	}
	resolve := func(s string) (string, bool) {
		if i, ok := placeholders[s]; ok {
			return texts[i], true
		}
		return s, false
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch t := v.(type) {
		case string:
			s, _ := resolve(t)
			return s
		case map[string]any:
			for k, c := range t {
				t[k] = walk(c)
			}
		case []any:
			for i, c := range t {
				t[i] = walk(c)
			}
		}
		return v
	}
	return walk(v), nil
}

func totalLen(spans [][2]int) int {
	n := 0
	for _, sp := range spans {
		n += sp[1] - sp[0]
	}
	return n
}

// longStrings returns the spans (quotes included) of the string literals of
// the JSON text data longer than min bytes. Outside a string every '"'
// starts one, so no parse is needed; data that is not JSON gives spans of
// no meaning, which callers rule out with json.Valid.
func longStrings(data []byte, min int) [][2]int {
	var spans [][2]int
	for i := 0; i < len(data); {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			break
		}
		start := i + q
		end := stringEnd(data, start)
		if end < 0 {
			break
		}
		if end-start > min {
			spans = append(spans, [2]int{start, end})
		}
		i = end
	}
	return spans
}

// stringEnd returns the index just past the string literal that starts at
// data[start] ('"'), or -1 when it does not end. It jumps from quote to
// quote (a quote after an odd run of backslashes is escaped), rather than
// stopping at every escape: a tool's output escapes a newline every line.
func stringEnd(data []byte, start int) int {
	for i := start + 1; i < len(data); {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return -1
		}
		q := i + j
		n := 0
		for p := q - 1; p > start && data[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
	return -1
}

// validString reports whether lit (quotes included, as longStrings cuts
// it) is a valid JSON string literal: no control characters, and only
// JSON's escapes (invalid UTF-8 is valid JSON, which decodes it as
// U+FFFD). It is many times faster than json.Valid on a long literal:
// control characters are looked for eight bytes at a time, and quotes and
// escapes with bytes.IndexByte.
func validString(lit []byte) bool {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return false
	}
	s := lit[1 : len(lit)-1]
	if hasControlByte(s) {
		return false
	}
	for i := 0; ; {
		j := bytes.IndexByte(s[i:], '\\')
		seg := s[i:]
		if j >= 0 {
			seg = s[i : i+j]
		}
		if bytes.IndexByte(seg, '"') >= 0 {
			return false
		}
		if j < 0 {
			return true
		}
		i += j + 1 // at the escaped character
		if i >= len(s) {
			return false
		}
		switch s[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i++
		case 'u':
			if i+5 > len(s) {
				return false
			}
			for _, h := range s[i+1 : i+5] {
				if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
					return false
				}
			}
			i += 5
		default:
			return false
		}
	}
}

// hasControlByte reports whether s holds a byte below 0x20, testing eight
// bytes at a time: a word has one exactly when (w - 0x20 in every byte) &^
// w has a top bit set (the test is exact for the word as a whole).
func hasControlByte(s []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(s[i:])
		if (w-0x20*ones)&^w&highs != 0 {
			return true
		}
	}
	for _, c := range s[i:] {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// validJSON is json.Valid, but with string literals over 64 KiB checked by
// validString and the rest by json.Valid on a copy without them: a
// payload that is mostly one long string is checked at memory speed.
func validJSON(data []byte) bool {
	spans := longStrings(data, 64<<10)
	if len(spans) == 0 {
		return json.Valid(data)
	}
	reduced := make([]byte, 0, 4*len(spans)+len(data)-totalLen(spans))
	last := 0
	for _, sp := range spans {
		if !validString(data[sp[0]:sp[1]]) {
			return false
		}
		reduced = append(append(reduced, data[last:sp[0]]...), `""`...)
		last = sp[1]
	}
	return json.Valid(append(reduced, data[last:]...))
}

// isKey reports whether the literal ending at end is an object key (a ':'
// follows it).
func isKey(data []byte, end int) bool {
	for _, c := range data[end:] {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}

// unescapeInPlace decodes the valid JSON string literal lit (quotes
// included, valid UTF-8) into lit's own bytes and returns them, as
// encoding/json decodes it: a lone surrogate becomes U+FFFD. The result is
// never longer than the literal.
func unescapeInPlace(lit []byte) []byte {
	s := lit[1 : len(lit)-1]
	w := 0
	for r := 0; r < len(s); {
		j := bytes.IndexByte(s[r:], '\\')
		if j < 0 {
			if w == r {
				return s
			}
			w += copy(s[w:], s[r:])
			break
		}
		if w == r {
			w += j
		} else {
			w += copy(s[w:], s[r:r+j])
		}
		r += j
		c := s[r+1]
		r += 2
		switch c {
		case 'b':
			s[w] = '\b'
		case 'f':
			s[w] = '\f'
		case 'n':
			s[w] = '\n'
		case 'r':
			s[w] = '\r'
		case 't':
			s[w] = '\t'
		case 'u':
			rr := hex4(s[r:])
			r += 4
			if utf16.IsSurrogate(rr) {
				rr2 := utf8.RuneError
				if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' {
					rr2 = hex4(s[r+2:])
				}
				if dec := utf16.DecodeRune(rr, rr2); dec != utf8.RuneError {
					r += 6
					rr = dec
				} else {
					rr = utf8.RuneError
				}
			}
			w += utf8.EncodeRune(s[w:], rr)
			continue
		default: // '"', '\\', '/'
			s[w] = c
		}
		w++
	}
	return s[:w]
}

// hex4 decodes four hex digits (valid JSON has them).
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// memberSpan is one member of a JSON object: its decoded key and the span
// of its value in the object's text.
type memberSpan struct {
	key        string
	start, end int
}

// objectMembers returns the members of the valid JSON object data in
// document order, or false when data is not one object.
func objectMembers(data []byte) ([]memberSpan, bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	var out []memberSpan
	for i = skipSpace(data, i+1); i < len(data) && data[i] != '}'; {
		ke := stringEnd(data, i)
		if ke < 0 {
			return nil, false
		}
		var key string
		if err := json.Unmarshal(data[i:ke], &key); err != nil {
			return nil, false
		}
		i = skipSpace(data, ke)
		if i >= len(data) || data[i] != ':' {
			return nil, false
		}
		vs := skipSpace(data, i+1)
		ve := valueEnd(data, vs)
		if ve < 0 {
			return nil, false
		}
		out = append(out, memberSpan{key: key, start: vs, end: ve})
		i = skipSpace(data, ve)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return out, i < len(data)
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// valueEnd returns the index just past the valid JSON value starting at
// data[i], or -1.
func valueEnd(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				e := stringEnd(data, i)
				if e < 0 {
					return -1
				}
				i = e
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	for i < len(data) && !bytes.ContainsRune([]byte(",}] \t\r\n"), rune(data[i])) {
		i++
	}
	return i
}
