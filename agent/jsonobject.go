package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Object is a JSON object that keeps its members in document order and keeps
// each value's bytes as written (numbers, string escapes). It is what settings
// files and Gemini transcripts are edited through, so that rewriting a file
// changes only what was meant to change. The zero value is an empty object.
// Not safe for concurrent mutation.
type Object struct {
	members []member
}

type member struct {
	rawKey []byte // the key as written, quotes included
	key    string
	value  json.RawMessage
}

// ParseObject parses data, which must hold exactly one JSON object.
func ParseObject(data []byte) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("parse json object: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("parse json object: not an object")
	}
	o := &Object{}
	for dec.More() {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("parse json object: %w", err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("parse json object: key is not a string")
		}
		seg := data[before:dec.InputOffset()]
		rawKey := seg[bytes.IndexByte(seg, '"'):]
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("parse json object: value of %q: %w", key, err)
		}
		o.members = append(o.members, member{rawKey: bytes.Clone(rawKey), key: key, value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("parse json object: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("parse json object: trailing data after object")
	}
	return o, nil
}

// Len returns the number of members.
func (o *Object) Len() int { return len(o.members) }

// Keys returns the member names in document order.
func (o *Object) Keys() []string {
	keys := make([]string, len(o.members))
	for i, m := range o.members {
		keys[i] = m.key
	}
	return keys
}

// Get returns the raw value of key (the last one if the key is repeated).
func (o *Object) Get(key string) (json.RawMessage, bool) {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == key {
			return o.members[i].value, true
		}
	}
	return nil, false
}

// Set replaces the value of key in place, or appends key at the end.
func (o *Object) Set(key string, value json.RawMessage) {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == key {
			o.members[i].value = value
			return
		}
	}
	o.members = append(o.members, member{rawKey: encodeString(key), key: key, value: value})
}

// SetObject stores sub (compact) under key, like Set.
func (o *Object) SetObject(key string, sub *Object) {
	o.Set(key, sub.Compact())
}

// Delete removes every member named key and reports whether one existed.
func (o *Object) Delete(key string) bool {
	kept := o.members[:0]
	found := false
	for _, m := range o.members {
		if m.key == key {
			found = true
			continue
		}
		kept = append(kept, m)
	}
	o.members = kept
	return found
}

// Compact returns the object as compact JSON. String contents and numbers are
// kept exactly as parsed; nothing is HTML-escaped.
func (o *Object) Compact() json.RawMessage {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range o.members {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(m.rawKey)
		buf.WriteByte(':')
		writeCompact(&buf, m.value)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// Indent returns the object formatted with one indent unit per level, in the
// layout of JSON.stringify(v, null, indent) and json.MarshalIndent.
func (o *Object) Indent(indent string) []byte {
	return IndentJSON(o.Compact(), indent)
}

// IndentJSON formats compact (valid) JSON with the given indent unit. Invalid
// input is returned unchanged.
func IndentJSON(compact []byte, indent string) []byte {
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", indent); err != nil {
		return compact
	}
	return out.Bytes()
}

// CompactArray encodes values as a compact JSON array without re-escaping
// their contents.
func CompactArray(values []json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, v := range values {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeCompact(&buf, v)
	}
	buf.WriteByte(']')
	return buf.Bytes()
}

// MustString encodes s as a JSON string without HTML escaping.
func MustString(s string) json.RawMessage { return encodeString(s) }

func writeCompact(buf *bytes.Buffer, v json.RawMessage) {
	if len(v) == 0 {
		buf.WriteString("null")
		return
	}
	if err := json.Compact(buf, v); err != nil {
		buf.Write(v)
	}
}

func encodeString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// SubObject returns member key of a settings object parsed as an object (an
// empty one when it is absent or null). A member that is not an object is an
// error wrapping ErrInvalidSettings that names the file path.
func SubObject(root *Object, key, path string) (*Object, error) {
	raw, ok := root.Get(key)
	if !ok || string(raw) == "null" {
		return &Object{}, nil
	}
	obj, err := ParseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %q is not an object", path, ErrInvalidSettings, key)
	}
	return obj, nil
}
