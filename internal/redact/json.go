package redact

import (
	"bytes"
	"encoding/json"
)

// JSONLine redacts one JSONL line (without or with its trailing newline).
// Only string values change, each secret replaced by Replacement in place, so
// the rest of the line keeps its exact bytes and a valid JSON line stays
// valid. A line that is not JSON gets plain-text redaction. The input is
// never modified; when nothing is found the input slice itself is returned.
func (r *Redactor) JSONLine(line []byte) []byte {
	return r.jsonBytes(line)
}

// JSONDoc redacts a whole JSON document (such as a Gemini CLI session file)
// the way JSONLine redacts a line: string values only, formatting kept. Input
// that is not JSON gets plain-text redaction.
func (r *Redactor) JSONDoc(doc []byte) []byte {
	return r.jsonBytes(doc)
}

// JSONL redacts a JSONL text line by line with JSONLine; line endings are
// kept. Because lines are independent, redacting a prefix that ends with a
// newline and then the rest gives the same bytes as redacting the whole.
func (r *Redactor) JSONL(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		n := bytes.IndexByte(b, '\n')
		line := b
		if n >= 0 {
			line = b[:n+1]
		}
		b = b[len(line):]
		out = append(out, r.JSONLine(line)...)
	}
	return out
}

// Transcript redacts a transcript file of either shape: a single JSON
// document (Gemini CLI sessions, including pretty-printed ones) goes through
// JSONDoc, anything else through JSONL.
func (r *Redactor) Transcript(b []byte) []byte {
	if json.Valid(b) {
		return r.JSONDoc(b)
	}
	return r.JSONL(b)
}

// ScanJSON reports the secrets JSONLine or JSONDoc would redact in b, with
// spans in b's raw bytes (a span covers whole escape sequences). Input that
// is not JSON is scanned as plain text.
func (r *Redactor) ScanJSON(b []byte) []Finding {
	fs, ok := r.scanJSON(b)
	if !ok {
		return r.Scan(string(b))
	}
	return fs
}

func (r *Redactor) jsonBytes(b []byte) []byte {
	fs, ok := r.scanJSON(b)
	if !ok {
		fs = r.Scan(string(b))
	}
	if len(fs) == 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	last := 0
	for _, sp := range mergeSpans(fs) {
		out = append(out, b[last:sp[0]]...)
		out = append(out, Replacement...)
		last = sp[1]
	}
	return append(out, b[last:]...)
}

// decodedString is a string value with its decoded text and offset map.
type decodedString struct {
	js    jsonString
	text  string
	units []escUnit
	found []Finding // spans in text
}

// scanJSON finds secrets in the string values of b. ok is false when b is
// not JSON.
func (r *Redactor) scanJSON(b []byte) ([]Finding, bool) {
	strs, err := walkJSON(b)
	if err != nil {
		return nil, false
	}
	var ds []decodedString
	var all []secretRef
	seen := map[string]bool{}
	for _, js := range strs {
		d := decodedString{js: js}
		raw := b[js.start:js.end]
		if js.hasEscape {
			// The escape units map decoded spans back to raw ones.
			d.text, d.units = unescapeJSON(raw)
		} else {
			d.text = string(raw)
		}
		d.found = r.detectMember(b, js, d.text)
		if len(d.found) > 0 {
			for _, s := range secretsOf(d.text, d.found) {
				if !seen[s.text] {
					seen[s.text] = true
					all = append(all, s)
				}
			}
		}
		ds = append(ds, d)
	}
	sortSecrets(all)
	occ := newOccurrenceIndex(all)
	var out []Finding
	for i := range ds {
		d := &ds[i]
		fs := occ.add(d.text, d.found)
		for _, f := range fs {
			s, e := f.Start, f.End
			if d.units != nil {
				s, e = rawSpan(d.units, s, e)
			}
			out = append(out, Finding{RuleID: f.RuleID, Start: d.js.start + s, End: d.js.start + e})
		}
	}
	return sortFindings(out), true
}

// detectMember detects secrets in a decoded string value. A member value
// whose key contains a rule keyword is scanned together with the raw key,
// `"key": "value"`, the way gitleaks sees it in a file, so assignments such
// as {"password": "..."} are found; spans are clipped to the value.
func (r *Redactor) detectMember(b []byte, js jsonString, text string) []Finding {
	if js.keyStart < 0 || !r.keyTriggers(b[js.keyStart:js.start]) {
		return r.detectText(text, !js.idLike)
	}
	prefix := string(b[js.keyStart:js.start])
	fs := r.detectText(prefix+text+`"`, !js.idLike)
	out := fs[:0]
	for _, f := range fs {
		s, e := f.Start-len(prefix), f.End-len(prefix)
		s = max(s, 0)
		e = min(e, len(text))
		if e <= s {
			continue
		}
		out = append(out, Finding{RuleID: f.RuleID, Start: s, End: e})
	}
	return out
}

// keyTriggers reports whether s contains a keyword of any rule.
func (r *Redactor) keyTriggers(s []byte) bool {
	return r.kw.hasKeyword(string(s))
}
