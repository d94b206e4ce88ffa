// Package jsonedit edits JSON documents at the text level: members and
// array elements are inserted into the existing bytes in the document's own
// layout (indent unit, line ending, compact or expanded containers), and
// removed together with exactly the separator and whitespace that came with
// them, so that removing what was inserted gives back the original bytes.
// Nothing else in the document is re-serialised.
//
// It is what `entire enable` uses to add its entries to agent and project
// settings files, and `entire disable --uninstall` to take them out again
// while keeping everything the user wrote, before or after.
package jsonedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Path addresses a value from the root: each step is a string (an object
// member name) or an int (an array index).
type Path []any

// Doc is a parsed JSON document whose top-level value is an object. Edits
// change its bytes in place; Bytes returns them. Not safe for concurrent use.
type Doc struct {
	src  []byte
	root *node
}

// node is one value of the document: its byte span and, for containers, its
// children (members' keys with the offset where each key starts).
type node struct {
	kind       byte // '{', '[', or 0 for a scalar
	start, end int  // [start, end) of the value
	keys       []string
	keyStarts  []int
	kids       []*node
}

// ErrNotObject is returned by Parse for input that is valid JSON but not an
// object.
var ErrNotObject = errors.New("not a JSON object")

// Parse parses data, which must be one JSON object, optionally surrounded by
// whitespace (kept as it is).
func Parse(data []byte) (*Doc, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return nil, fmt.Errorf("parse json: %w", err)
	}
	d := &Doc{src: bytes.Clone(data)}
	d.reparse()
	if d.root.kind != '{' {
		return nil, fmt.Errorf("parse json: %w", ErrNotObject)
	}
	return d, nil
}

// New returns a document holding an empty object, "{}". Members inserted
// into it are laid out expanded, two spaces per level.
func New() *Doc {
	d := &Doc{src: []byte("{}")}
	d.reparse()
	return d
}

// Bytes returns the document's current bytes.
func (d *Doc) Bytes() []byte { return bytes.Clone(d.src) }

// reparse rebuilds the tree from src, which must be valid JSON.
func (d *Doc) reparse() {
	p := parser{s: d.src}
	d.root = p.value()
}

// parser scans valid JSON, recording spans.
type parser struct {
	s []byte
	i int
}

func (p *parser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value() *node {
	p.ws()
	n := &node{start: p.i}
	switch p.s[p.i] {
	case '{':
		n.kind = '{'
		p.i++
		p.ws()
		for p.s[p.i] != '}' {
			p.ws()
			ks := p.i
			p.str()
			var key string
			_ = json.Unmarshal(p.s[ks:p.i], &key)
			p.ws()
			p.i++ // ':'
			n.keys = append(n.keys, key)
			n.keyStarts = append(n.keyStarts, ks)
			n.kids = append(n.kids, p.value())
			p.ws()
			if p.s[p.i] == ',' {
				p.i++
			}
		}
		p.i++
	case '[':
		n.kind = '['
		p.i++
		p.ws()
		for p.s[p.i] != ']' {
			n.kids = append(n.kids, p.value())
			p.ws()
			if p.s[p.i] == ',' {
				p.i++
				p.ws()
			}
		}
		p.i++
	case '"':
		p.str()
	default:
		for p.i < len(p.s) && !strings.ContainsRune(",]} \t\r\n", rune(p.s[p.i])) {
			p.i++
		}
	}
	n.end = p.i
	return n
}

// str skips a string starting at p.i.
func (p *parser) str() {
	p.i++
	for p.s[p.i] != '"' {
		if p.s[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	p.i++
}

// lookup returns the node at path, or nil.
func (d *Doc) lookup(path Path) *node {
	n := d.root
	for _, step := range path {
		switch s := step.(type) {
		case string:
			if n.kind != '{' {
				return nil
			}
			i := n.index(s)
			if i < 0 {
				return nil
			}
			n = n.kids[i]
		case int:
			if n.kind != '[' || s < 0 || s >= len(n.kids) {
				return nil
			}
			n = n.kids[s]
		default:
			return nil
		}
	}
	return n
}

// index returns the position of the last member named key, or -1.
func (n *node) index(key string) int {
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i] == key {
			return i
		}
	}
	return -1
}

// Get returns the bytes of the value at path.
func (d *Doc) Get(path ...any) (json.RawMessage, bool) {
	n := d.lookup(path)
	if n == nil {
		return nil, false
	}
	return bytes.Clone(d.src[n.start:n.end]), true
}

// Kind returns '{' for an object, '[' for an array, 's' for a string, 'v'
// for another scalar, and 0 when nothing is at path.
func (d *Doc) Kind(path ...any) byte {
	n := d.lookup(path)
	switch {
	case n == nil:
		return 0
	case n.kind != 0:
		return n.kind
	case d.src[n.start] == '"':
		return 's'
	}
	return 'v'
}

// Keys returns the member names of the object at path, in document order.
func (d *Doc) Keys(path ...any) []string {
	n := d.lookup(path)
	if n == nil || n.kind != '{' {
		return nil
	}
	return append([]string(nil), n.keys...)
}

// Len returns the number of members or elements of the container at path
// (0 for anything else).
func (d *Doc) Len(path ...any) int {
	n := d.lookup(path)
	if n == nil {
		return 0
	}
	return len(n.kids)
}

// Insert adds member key with value (any valid JSON) at the end of the
// object at path. It is an error if the object already has key.
func (d *Doc) Insert(path Path, key string, value []byte) error {
	n := d.lookup(path)
	if n == nil || n.kind != '{' {
		return fmt.Errorf("insert %q: %s is not an object", key, path)
	}
	if n.index(key) >= 0 {
		return fmt.Errorf("insert %q: %s already has it", key, path)
	}
	k, _ := marshalNoEscape(key)
	return d.add(n, k, value)
}

// Append adds value (any valid JSON) at the end of the array at path.
func (d *Doc) Append(path Path, value []byte) error {
	n := d.lookup(path)
	if n == nil || n.kind != '[' {
		return fmt.Errorf("append: %s is not an array", path)
	}
	return d.add(n, nil, value)
}

// add inserts a member (key != nil) or element at the end of container n.
func (d *Doc) add(n *node, key, value []byte) error {
	var cv bytes.Buffer
	if err := json.Compact(&cv, value); err != nil {
		return fmt.Errorf("insert: invalid value: %w", err)
	}
	nl := d.newline()
	var text []byte
	expanded := d.expanded(n)
	ind := d.childIndent(n)
	colon := d.colon(n, expanded)
	item := func() []byte {
		var b bytes.Buffer
		if key != nil {
			b.Write(key)
			b.WriteString(colon)
		}
		if expanded {
			var v bytes.Buffer
			_ = json.Indent(&v, cv.Bytes(), ind, d.unit())
			b.Write(bytes.ReplaceAll(v.Bytes(), []byte("\n"), []byte(nl)))
		} else {
			b.Write(cv.Bytes())
		}
		return b.Bytes()
	}
	if len(n.kids) == 0 {
		// The whitespace inside an empty container is replaced.
		if expanded {
			text = append([]byte(nl+ind), item()...)
			text = append(text, nl+d.lineIndent(n.start)...)
		} else {
			text = item()
		}
		d.splice(n.start+1, n.end-1, text)
		return nil
	}
	at := n.kids[len(n.kids)-1].end
	if expanded {
		text = append([]byte(","+nl+ind), item()...)
	} else {
		text = append([]byte(","+d.compactSep(n)), item()...)
	}
	d.splice(at, at, text)
	return nil
}

// Remove deletes the member or element at path (the last step names it)
// with the separator that joins it to its neighbours: the comma and
// whitespace before it, or, for the first of several, the comma and
// whitespace after it. Removing the only one leaves an empty container
// with nothing between its brackets. It reports whether something was
// there.
func (d *Doc) Remove(path Path) (bool, error) {
	if len(path) == 0 {
		return false, errors.New("remove: empty path")
	}
	parent := d.lookup(path[:len(path)-1])
	if parent == nil || parent.kind == 0 {
		return false, nil
	}
	i := -1
	switch s := path[len(path)-1].(type) {
	case string:
		if parent.kind == '{' {
			i = parent.index(s)
		}
	case int:
		if parent.kind == '[' && s >= 0 && s < len(parent.kids) {
			i = s
		}
	}
	if i < 0 {
		return false, nil
	}
	starts := func(j int) int {
		if parent.kind == '{' {
			return parent.keyStarts[j]
		}
		return parent.kids[j].start
	}
	switch {
	case len(parent.kids) == 1:
		d.splice(parent.start+1, parent.end-1, nil)
	case i > 0:
		d.splice(parent.kids[i-1].end, parent.kids[i].end, nil)
	default:
		d.splice(starts(0), starts(1), nil)
	}
	return true, nil
}

// Replace sets the value at path to value (any valid JSON, written
// compact), keeping everything around it.
func (d *Doc) Replace(path Path, value []byte) error {
	n := d.lookup(path)
	if n == nil {
		return fmt.Errorf("replace: nothing at %s", path)
	}
	var cv bytes.Buffer
	if err := json.Compact(&cv, value); err != nil {
		return fmt.Errorf("replace: invalid value: %w", err)
	}
	d.splice(n.start, n.end, cv.Bytes())
	return nil
}

// splice replaces src[from:to] with text and re-parses.
func (d *Doc) splice(from, to int, text []byte) {
	out := make([]byte, 0, len(d.src)-(to-from)+len(text))
	out = append(out, d.src[:from]...)
	out = append(out, text...)
	out = append(out, d.src[to:]...)
	d.src = out
	d.reparse()
}

// newline is "\r\n" when the document uses it, else "\n".
func (d *Doc) newline() string {
	if bytes.Contains(d.src, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// unit is the indent unit: the leading whitespace of the first indented
// line, or two spaces.
func (d *Doc) unit() string {
	lines := bytes.Split(d.src, []byte("\n"))
	for _, line := range lines[1:] {
		n := 0
		for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
			n++
		}
		if n > 0 && n < len(line) && line[n] != '\r' {
			return string(line[:n])
		}
	}
	return "  "
}

// expanded reports whether items of container n go on lines of their own:
// when n spans several lines, or, for an empty container, when the document
// does or is an empty object.
func (d *Doc) expanded(n *node) bool {
	if bytes.IndexByte(d.src[n.start:n.end], '\n') >= 0 {
		return true
	}
	if len(n.kids) > 0 {
		return false
	}
	return bytes.IndexByte(d.src, '\n') >= 0 || len(d.root.kids) == 0
}

// lineIndent is the leading whitespace of the line holding offset at.
func (d *Doc) lineIndent(at int) string {
	ls := bytes.LastIndexByte(d.src[:at], '\n') + 1
	e := ls
	for e < at && (d.src[e] == ' ' || d.src[e] == '\t') {
		e++
	}
	return string(d.src[ls:e])
}

// childIndent is the indentation of n's items: that of its first item when
// it starts a line, else n's line indentation plus one unit.
func (d *Doc) childIndent(n *node) string {
	if len(n.kids) > 0 {
		s := n.kids[0].start
		if n.kind == '{' {
			s = n.keyStarts[0]
		}
		ls := bytes.LastIndexByte(d.src[:s], '\n')
		if ls > n.start && len(bytes.Trim(d.src[ls+1:s], " \t")) == 0 {
			return string(d.src[ls+1 : s])
		}
	}
	return d.lineIndent(n.start) + d.unit()
}

// colon is the text between a key and its value: as written in n's first
// member (else the root's), or ": " (":" in a compact container).
func (d *Doc) colon(n *node, expanded bool) string {
	for _, o := range []*node{n, d.root} {
		if o.kind == '{' && len(o.kids) > 0 {
			p := parser{s: d.src, i: o.keyStarts[0]}
			p.str()
			if c := string(d.src[p.i:o.kids[0].start]); strings.TrimSpace(c) == ":" && !strings.ContainsAny(c, "\r\n") {
				return c
			}
		}
	}
	if expanded {
		return ": "
	}
	return ":"
}

// compactSep is the whitespace after a comma in compact container n.
func (d *Doc) compactSep(n *node) string {
	if len(n.kids) >= 2 {
		s := n.kids[1].start
		if n.kind == '{' {
			s = n.keyStarts[1]
		}
		c := d.src[n.kids[0].end:s]
		if i := bytes.IndexByte(c, ','); i >= 0 && !bytes.ContainsAny(c, "\r\n") {
			return string(c[i+1:])
		}
	}
	if strings.HasSuffix(d.colon(n, false), " ") {
		return " "
	}
	return ""
}

// marshalNoEscape encodes s as a JSON string without HTML escaping.
func marshalNoEscape(s string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// String formats p for messages, e.g. `hooks.Stop[0]`.
func (p Path) String() string {
	if len(p) == 0 {
		return "the root"
	}
	var b strings.Builder
	for i, s := range p {
		switch s := s.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, s)
		}
	}
	return b.String()
}
