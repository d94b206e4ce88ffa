package references

import (
	"bytes"
	"encoding/json"

	"github.com/entirecli/entire/renderrefs"
)

var marker = []byte(renderrefs.Marker)

// CleanJSON runs renderrefs.Extract over every JSON string of doc (one
// JSONL line or a whole document) that contains the marker, and returns doc
// with those strings re-encoded without their sentinel lines, together with
// the references found, in order of appearance. Only the changed string
// tokens are rewritten; every other byte of doc is kept, so valid JSON
// stays valid. Without the marker, doc itself is returned (no copy).
// Strings that cannot be decoded, and an unterminated string at the end,
// are left alone. It never panics.
func CleanJSON(doc []byte) ([]byte, []renderrefs.Reference) {
	if !bytes.Contains(doc, marker) {
		return doc, nil
	}
	var out []byte
	var refs []renderrefs.Reference
	last := 0
	for i := 0; i < len(doc); i++ {
		if doc[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(doc) && doc[j] != '"' {
			if doc[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(doc) {
			break
		}
		tok := doc[i : j+1]
		if bytes.Contains(tok, marker) {
			var s string
			if json.Unmarshal(tok, &s) == nil {
				clean, found := renderrefs.Extract(s)
				if clean != s {
					out = append(out, doc[last:i]...)
					out = append(out, encodeString(clean)...)
					last = j + 1
				}
				refs = append(refs, found...)
			}
		}
		i = j
	}
	if out == nil {
		return doc, refs
	}
	return append(out, doc[last:]...), refs
}

// encodeString is the JSON encoding of s, without HTML escaping.
func encodeString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
