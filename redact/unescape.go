package redact

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeJSONString decodes the raw content of a JSON string (no quotes).
// Malformed escapes decode leniently; it never fails.
func decodeJSONString(raw []byte) string {
	s, _, _ := unescapeJSON(raw, false)
	return s
}

// unescapeJSON decodes raw JSON string content. With withMap it also returns,
// for every decoded byte i (and i == len), the raw offset of the escape unit
// that produced it and whether byte i starts that unit, so spans of the
// decoded text map back to whole units of the raw text.
func unescapeJSON(raw []byte, withMap bool) (string, []int32, []bool) {
	dec := make([]byte, 0, len(raw))
	var off []int32
	var start []bool
	if withMap {
		off = make([]int32, 0, len(raw)+1)
		start = make([]bool, 0, len(raw)+1)
	}
	emit := func(rawAt int, bs []byte) {
		for k, c := range bs {
			dec = append(dec, c)
			if withMap {
				off = append(off, int32(rawAt))
				start = append(start, k == 0)
			}
		}
	}
	var buf [utf8.UTFMax]byte
	for j := 0; j < len(raw); {
		// Copy the run up to the next escape at once.
		k := bytes.IndexByte(raw[j:], '\\')
		if k < 0 {
			k = len(raw) - j
		}
		if k > 0 {
			dec = append(dec, raw[j:j+k]...)
			if withMap {
				for i := j; i < j+k; i++ {
					off = append(off, int32(i))
					start = append(start, true)
				}
			}
			j += k
			continue
		}
		if j+1 >= len(raw) {
			emit(j, raw[j:j+1])
			j++
			continue
		}
		if !withMap {
			// Fast path for the one-byte escapes of ordinary text.
			if c := simpleEscapes[raw[j+1]]; c != 0 {
				dec = append(dec, c)
				j += 2
				continue
			}
		}
		var r rune = -1
		n := 2
		switch raw[j+1] {
		case '"', '\\', '/':
			r = rune(raw[j+1])
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			if u, ok := hex4(raw, j+2); ok {
				r, n = rune(u), 6
				if utf16.IsSurrogate(r) {
					r = utf8.RuneError
					if u2, ok2 := hex4(raw, j+8); ok2 && j+7 < len(raw) && raw[j+6] == '\\' && raw[j+7] == 'u' {
						if p := utf16.DecodeRune(rune(u), rune(u2)); p != utf8.RuneError {
							r, n = p, 12
						}
					}
				}
			}
		}
		if r < 0 {
			// Malformed escape: keep both bytes as one unit.
			emit(j, raw[j:j+2])
			j += 2
			continue
		}
		k = utf8.EncodeRune(buf[:], r)
		emit(j, buf[:k])
		j += n
	}
	if withMap {
		off = append(off, int32(len(raw)))
		start = append(start, true)
	}
	return string(dec), off, start
}

// simpleEscapes maps the byte after a backslash to the byte it stands for,
// for the escapes that decode to one byte (0: not such an escape).
var simpleEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func hex4(b []byte, i int) (uint16, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var v uint16
	for _, c := range b[i : i+4] {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= uint16(c - '0')
		case c >= 'a' && c <= 'f':
			v |= uint16(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			v |= uint16(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return v, true
}

// rawSpan maps the decoded span [s,e) to the raw span covering whole units.
func rawSpan(off []int32, start []bool, s, e int) (int, int) {
	for s > 0 && !start[s] {
		s--
	}
	n := len(off) - 1
	for e < n && !start[e] {
		e++
	}
	return int(off[s]), int(off[e])
}
