package redact

import (
	"errors"
	"strings"
)

// errNotJSON reports input the walker cannot parse; callers fall back to
// plain-text redaction.
var errNotJSON = errors.New("redact: not JSON")

// maxJSONDepth bounds nesting so hostile input cannot exhaust the stack.
const maxJSONDepth = 1000

// jsonString is one string value that redaction may change.
type jsonString struct {
	start, end int // raw content, between the quotes
	hasEscape  bool
	keyStart   int  // opening quote of the member's key, or -1 outside objects
	idLike     bool // under a "signature"/"*id"/"*ids" key: no entropy check
}

// walker collects the redactable string values of a JSON text.
type walker struct {
	b    []byte
	strs []jsonString
}

// walkJSON parses b as a sequence of JSON values separated by whitespace
// (one value for a document; several for a JSONL line whose newline got
// lost) and returns the string values that redaction applies to.
func walkJSON(b []byte) ([]jsonString, error) {
	w := walker{b: b}
	i := w.ws(0)
	if i == len(b) {
		return nil, errNotJSON
	}
	for i < len(b) {
		end, err := w.value(i, false, -1, 0)
		if err != nil {
			return nil, err
		}
		i = w.ws(end)
	}
	return w.strs, nil
}

func (w *walker) ws(i int) int {
	for i < len(w.b) {
		switch w.b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// value parses the value at i and returns the index after it. idLike marks
// the strings inside as identifiers; keyStart is the member key's quote for a
// direct member value.
func (w *walker) value(i int, idLike bool, keyStart, depth int) (int, error) {
	if i >= len(w.b) {
		return 0, errNotJSON
	}
	if depth > maxJSONDepth {
		return 0, errNotJSON
	}
	switch c := w.b[i]; {
	case c == '"':
		end, esc, err := w.str(i)
		if err != nil {
			return 0, err
		}
		if end-i > 2 {
			w.strs = append(w.strs, jsonString{start: i + 1, end: end - 1, hasEscape: esc, keyStart: keyStart, idLike: idLike})
		}
		return end, nil
	case c == '{':
		return w.object(i, idLike, depth)
	case c == '[':
		i = w.ws(i + 1)
		if i < len(w.b) && w.b[i] == ']' {
			return i + 1, nil
		}
		for {
			end, err := w.value(i, idLike, -1, depth+1)
			if err != nil {
				return 0, err
			}
			i = w.ws(end)
			if i >= len(w.b) {
				return 0, errNotJSON
			}
			if w.b[i] == ']' {
				return i + 1, nil
			}
			if w.b[i] != ',' {
				return 0, errNotJSON
			}
			i = w.ws(i + 1)
		}
	case c == 't':
		return w.literal(i, "true")
	case c == 'f':
		return w.literal(i, "false")
	case c == 'n':
		return w.literal(i, "null")
	case c == '-' || c >= '0' && c <= '9':
		j := i + 1
		for j < len(w.b) && strings.IndexByte("0123456789+-.eE", w.b[j]) >= 0 {
			j++
		}
		return j, nil
	default:
		return 0, errNotJSON
	}
}

func (w *walker) literal(i int, lit string) (int, error) {
	if len(w.b)-i < len(lit) || string(w.b[i:i+len(lit)]) != lit {
		return 0, errNotJSON
	}
	return i + len(lit), nil
}

// str scans the string starting at the quote at i and returns the index
// after its closing quote and whether it holds escapes.
func (w *walker) str(i int) (int, bool, error) {
	esc := false
	for j := i + 1; j < len(w.b); j++ {
		for j < len(w.b) && !strSpecial[w.b[j]] {
			j++
		}
		if j == len(w.b) {
			break
		}
		switch c := w.b[j]; {
		case c == '"':
			return j + 1, esc, nil
		case c == '\\':
			esc = true
			j++
		case c < 0x20:
			return 0, false, errNotJSON
		}
	}
	return 0, false, errNotJSON
}

// strSpecial marks the bytes str must look at: the quote, the backslash
// and control bytes (invalid in strings).
var strSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// object parses an object. Its strings are dropped afterwards when its
// "type" marks it as an image or base64 payload.
func (w *walker) object(i int, idLike bool, depth int) (int, error) {
	mark := len(w.strs)
	dropObject := false
	i = w.ws(i + 1)
	if i < len(w.b) && w.b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(w.b) || w.b[i] != '"' {
			return 0, errNotJSON
		}
		keyStart := i
		keyEnd, _, err := w.str(i)
		if err != nil {
			return 0, err
		}
		key := w.b[keyStart+1 : keyEnd-1]
		i = w.ws(keyEnd)
		if i >= len(w.b) || w.b[i] != ':' {
			return 0, errNotJSON
		}
		i = w.ws(i + 1)
		valStart := i
		end, err := w.value(i, idLike || skipKey(key), keyStart, depth+1)
		if err != nil {
			return 0, err
		}
		if string(key) == "type" && w.b[valStart] == '"' {
			t := decodeJSONString(w.b[valStart+1 : end-1])
			if strings.HasPrefix(t, "image") || t == "base64" {
				dropObject = true
			}
		}
		i = w.ws(end)
		if i >= len(w.b) {
			return 0, errNotJSON
		}
		if w.b[i] == '}' {
			if dropObject {
				w.strs = w.strs[:mark]
			}
			return i + 1, nil
		}
		if w.b[i] != ',' {
			return 0, errNotJSON
		}
		i = w.ws(i + 1)
	}
}

// skipKey reports whether the value of key holds identifiers or signatures,
// which the high-entropy check must not touch: "signature" and keys ending
// in "id" or "ids", case-insensitively. Rule-based detectors still run on
// them, so {"aws_access_key_id": "AKIA..."} is redacted.
func skipKey(key []byte) bool {
	n := len(key)
	lower := func(c byte) byte {
		if c >= 'A' && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	if n >= 2 && lower(key[n-2]) == 'i' && lower(key[n-1]) == 'd' {
		return true
	}
	if n >= 3 && lower(key[n-3]) == 'i' && lower(key[n-2]) == 'd' && lower(key[n-1]) == 's' {
		return true
	}
	return strings.EqualFold(string(key), "signature")
}
