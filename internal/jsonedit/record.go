package jsonedit

import (
	"encoding/json"
	"reflect"
	"slices"
)

// Record lists what an installer inserted into one document, so that it can
// be taken out again (Undo) while the rest of the document, including what
// the user added since, is kept.
type Record struct {
	Added []Added `json:"added"`
}

// Added is one insertion. Path names the member (Element false) or the
// array the element was appended to (Element true). Value is what was
// inserted; it is empty for a container member, which is taken out only
// when it is empty again.
type Added struct {
	Path    []string        `json:"path"`
	Element bool            `json:"element,omitempty"`
	Value   json.RawMessage `json:"value,omitempty"`
}

// Member records that member path was inserted with value (nil for a
// container to be removed once empty). A nil Record records nothing.
func (r *Record) Member(path []string, value []byte) {
	r.add(Added{Path: path, Value: value})
}

// Element records that value was appended to the array at path.
func (r *Record) Element(path []string, value []byte) {
	r.add(Added{Path: path, Element: true, Value: value})
}

func (r *Record) add(a Added) {
	if r == nil {
		return
	}
	a.Path = slices.Clone(a.Path)
	for _, b := range r.Added {
		if slices.Equal(a.Path, b.Path) && a.Element == b.Element && sameJSON(a.Value, b.Value) {
			return
		}
	}
	r.Added = append(r.Added, a)
}

// Undo takes out of d what r records, last insertion first: an element
// equal to the recorded value (the last such one), a member whose value is
// still the recorded one, a container member that is empty. Anything
// changed since is left. It reports whether d changed.
func (d *Doc) Undo(r *Record) bool {
	if r == nil {
		return false
	}
	changed := false
	for i := len(r.Added) - 1; i >= 0; i-- {
		a := r.Added[i]
		p := Keys(a.Path)
		switch {
		case a.Element:
			n := d.lookup(p)
			if n == nil || n.kind != '[' {
				continue
			}
			for j := len(n.kids) - 1; j >= 0; j-- {
				if sameJSON(d.src[n.kids[j].start:n.kids[j].end], a.Value) {
					ok, _ := d.Remove(append(p, j))
					changed = changed || ok
					break
				}
			}
		case len(a.Value) > 0:
			if v, ok := d.Get(p...); ok && sameJSON(v, a.Value) {
				ok, _ := d.Remove(p)
				changed = changed || ok
			}
		default:
			if n := d.lookup(p); n != nil && n.kind != 0 && len(n.kids) == 0 {
				ok, _ := d.Remove(p)
				changed = changed || ok
			}
		}
	}
	return changed
}

// Keys is the path of nested object members keys (no array indexes).
func Keys(keys []string) Path {
	p := make(Path, len(keys))
	for i, k := range keys {
		p[i] = k
	}
	return p
}

// sameJSON reports whether a and b hold equal JSON values.
func sameJSON(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
