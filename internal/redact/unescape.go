package redact

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeJSONString decodes the raw content of a JSON string (no quotes).
// Malformed escapes decode leniently; it never fails.
func decodeJSONString(raw []byte) string {
	s, _ := unescapeJSON(raw)
	return s
}

// escUnit is one escape sequence of a raw JSON string: raw bytes
// [raw, raw+rawLen) decode to bytes [dec, dec+decLen) of the decoded text.
// Every byte outside escapes is a unit of its own that decodes to itself.
type escUnit struct {
	dec, raw, decLen, rawLen int32
}

// unescapeJSON decodes raw JSON string content and returns its escape units
// in order, so spans of the decoded text map back to whole units of the raw
// text (rawSpan).
func unescapeJSON(raw []byte) (string, []escUnit) {
	var dec strings.Builder
	dec.Grow(len(raw))
	// At most one unit per backslash: sized once, a text of many
	// megabytes with millions of escapes is not copied as it grows.
	var units []escUnit
	if n := bytes.Count(raw, []byte{'\\'}); n > 0 {
		units = make([]escUnit, 0, n)
	}
	emit := func(rawAt, rawLen int, bs []byte) {
		units = append(units, escUnit{dec: int32(dec.Len()), raw: int32(rawAt), decLen: int32(len(bs)), rawLen: int32(rawLen)})
		dec.Write(bs)
	}
	var buf [utf8.UTFMax]byte
	for j := 0; j < len(raw); {
		// Copy the run up to the next escape at once.
		k := bytes.IndexByte(raw[j:], '\\')
		if k < 0 {
			k = len(raw) - j
		}
		if k > 0 {
			dec.Write(raw[j : j+k])
			j += k
			continue
		}
		if j+1 >= len(raw) {
			dec.WriteByte('\\')
			j++
			continue
		}
		if c := simpleEscapes[raw[j+1]]; c != 0 {
			buf[0] = c
			emit(j, 2, buf[:1])
			j += 2
			continue
		}
		r, n := rune(-1), 2
		if raw[j+1] == 'u' {
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
			emit(j, 2, raw[j:j+2])
			j += 2
			continue
		}
		k = utf8.EncodeRune(buf[:], r)
		emit(j, n, buf[:k])
		j += n
	}
	return dec.String(), units
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
func rawSpan(units []escUnit, s, e int) (int, int) {
	return rawOffset(units, s, false), rawOffset(units, e, true)
}

// rawOffset maps decoded offset x to the raw offset of the unit holding it;
// with end, an offset inside a unit maps to the end of that unit.
func rawOffset(units []escUnit, x int, end bool) int {
	// k is the number of units starting at or before x.
	k, _ := slices.BinarySearchFunc(units, x, func(u escUnit, x int) int { return cmp.Compare(int(u.dec), x+1) })
	if k == 0 {
		return x
	}
	u := units[k-1]
	dec, raw := int(u.dec), int(u.raw)
	switch {
	case x == dec:
		return raw
	case x < dec+int(u.decLen):
		if end {
			return raw + int(u.rawLen)
		}
		return raw
	}
	return raw + int(u.rawLen) + x - dec - int(u.decLen)
}
