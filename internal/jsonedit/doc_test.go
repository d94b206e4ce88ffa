package jsonedit

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func mustParse(t *testing.T, s string) *Doc {
	t.Helper()
	d, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return d
}

func TestInsertLayout(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		path     Path
		key, val string
		want     string
	}{
		{"two spaces", "{\n  \"a\": 1\n}\n", nil, "b", `{"c":[1,2]}`,
			"{\n  \"a\": 1,\n  \"b\": {\n    \"c\": [\n      1,\n      2\n    ]\n  }\n}\n"},
		{"tabs", "{\n\t\"a\": {\n\t\t\"x\": true\n\t}\n}", Path{"a"}, "y", `[]`,
			"{\n\t\"a\": {\n\t\t\"x\": true,\n\t\t\"y\": []\n\t}\n}"},
		{"four spaces crlf", "{\r\n    \"a\": 1\r\n}\r\n", nil, "b", `{"c":1}`,
			"{\r\n    \"a\": 1,\r\n    \"b\": {\r\n        \"c\": 1\r\n    }\r\n}\r\n"},
		{"compact", `{"a":1,"b":2}`, nil, "c", `{"d": [1, 2]}`, `{"a":1,"b":2,"c":{"d":[1,2]}}`},
		{"compact spaced", `{"a": 1, "b": 2}`, nil, "c", `3`, `{"a": 1, "b": 2, "c": 3}`},
		{"empty root", `{}`, nil, "a", `{"b":1}`, "{\n  \"a\": {\n    \"b\": 1\n  }\n}"},
		{"empty nested", "{\n  \"a\": {}\n}", Path{"a"}, "b", `1`, "{\n  \"a\": {\n    \"b\": 1\n  }\n}"},
		{"no html escape", `{}`, nil, "a&b", `"<x>"`, "{\n  \"a&b\": \"<x>\"\n}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d := mustParse(t, c.in)
			if err := d.Insert(c.path, c.key, []byte(c.val)); err != nil {
				t.Fatal(err)
			}
			if got := string(d.Bytes()); got != c.want {
				t.Fatalf("insert:\n got %q\nwant %q", got, c.want)
			}
			if ok, err := d.Remove(append(append(Path{}, c.path...), c.key)); !ok || err != nil {
				t.Fatalf("remove = %v, %v", ok, err)
			}
			if got := string(d.Bytes()); got != c.in {
				t.Fatalf("remove:\n got %q\nwant %q", got, c.in)
			}
		})
	}
}

func TestAppendAndRemoveElements(t *testing.T) {
	t.Parallel()
	in := "{\n  \"deny\": [\n    \"a\"\n  ],\n  \"e\": []\n}"
	d := mustParse(t, in)
	if err := d.Append(Path{"deny"}, []byte(`"b"`)); err != nil {
		t.Fatal(err)
	}
	if err := d.Append(Path{"e"}, []byte(`{"x":1}`)); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"deny\": [\n    \"a\",\n    \"b\"\n  ],\n  \"e\": [\n    {\n      \"x\": 1\n    }\n  ]\n}"
	if got := string(d.Bytes()); got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	// A user's element added after ours survives our removal.
	if err := d.Append(Path{"deny"}, []byte(`"c"`)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []Path{{"e", 0}, {"deny", 1}} {
		if ok, err := d.Remove(p); !ok || err != nil {
			t.Fatalf("remove %s = %v, %v", p, ok, err)
		}
	}
	want = "{\n  \"deny\": [\n    \"a\",\n    \"c\"\n  ],\n  \"e\": []\n}"
	if got := string(d.Bytes()); got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	// The first of several takes the separator after it.
	if _, err := d.Remove(Path{"deny", 0}); err != nil {
		t.Fatal(err)
	}
	if got, _ := d.Get("deny"); string(got) != "[\n    \"c\"\n  ]" {
		t.Fatalf("deny = %q", got)
	}
}

func TestGetKindKeysReplace(t *testing.T) {
	t.Parallel()
	d := mustParse(t, ` {"a": {"b": [1, "x", null]}, "a2": "s"} `)
	if k := d.Kind("a", "b", 1); k != 's' {
		t.Errorf("kind = %c", k)
	}
	if k := d.Kind("a", "b", 3); k != 0 {
		t.Errorf("kind of missing = %d", k)
	}
	if got := d.Keys(); !reflect.DeepEqual(got, []string{"a", "a2"}) {
		t.Errorf("keys = %v", got)
	}
	if err := d.Replace(Path{"a", "b", 0}, []byte(" true ")); err != nil {
		t.Fatal(err)
	}
	if got := string(d.Bytes()); got != ` {"a": {"b": [true, "x", null]}, "a2": "s"} ` {
		t.Errorf("replace: %q", got)
	}
	if err := d.Insert(nil, "a", []byte("1")); err == nil {
		t.Error("insert of an existing key succeeded")
	}
	if _, err := Parse([]byte(`[1]`)); err == nil {
		t.Error("array accepted as a document")
	}
	if _, err := Parse([]byte(`{"a":}`)); err == nil {
		t.Error("invalid JSON accepted")
	}
}

// checkRoundTrip inserts a member into every object and an element into
// every array of doc (one at a time), checks the result is valid and holds
// the new value, then removes it and expects the original bytes back. An
// empty container comes back as written only when nothing was between its
// brackets.
func checkRoundTrip(t *testing.T, data []byte) {
	d, err := Parse(data)
	if err != nil {
		return
	}
	var paths []Path
	var walk func(p Path)
	walk = func(p Path) {
		paths = append(paths, p)
		n := d.lookup(p)
		for i := range n.kids {
			q := append(append(Path{}, p...), any(i))
			if n.kind == '{' {
				q[len(q)-1] = n.keys[i]
			}
			// A repeated key is read as its last member (as JSON
			// decoders do): an earlier one has no path of its own.
			if n.kids[i].kind != 0 && d.lookup(q) == n.kids[i] {
				walk(q)
			}
		}
	}
	walk(nil)
	val := []byte(`{"entire":["a",1,{"b":null}]}`)
	for _, p := range paths {
		e, _ := Parse(data)
		n := e.lookup(p)
		if n == nil {
			continue // a repeated key shadows this path
		}
		inner := data[n.start+1 : n.end-1]
		var rm Path
		if n.kind == '{' {
			key := "\x00new-key"
			if err := e.Insert(p, key, val); err != nil {
				t.Fatalf("insert at %s: %v", p, err)
			}
			rm = append(append(Path{}, p...), key)
		} else {
			if err := e.Append(p, val); err != nil {
				t.Fatalf("append at %s: %v", p, err)
			}
			rm = append(append(Path{}, p...), len(n.kids))
		}
		mid := e.Bytes()
		if !json.Valid(mid) {
			t.Fatalf("insert at %s gave invalid JSON:\n%s", p, mid)
		}
		got, ok := e.Get(rm...)
		var a, b any
		_ = json.Unmarshal(got, &a)
		_ = json.Unmarshal(val, &b)
		if !ok || !reflect.DeepEqual(a, b) {
			t.Fatalf("inserted value at %s reads back as %q", rm, got)
		}
		if ok, err := e.Remove(rm); !ok || err != nil {
			t.Fatalf("remove %s = %v, %v", rm, ok, err)
		}
		want := data
		if len(n.kids) == 0 && len(inner) > 0 {
			want = bytes.Join([][]byte{data[:n.start+1], data[n.end-1:]}, nil)
		}
		if !bytes.Equal(e.Bytes(), want) {
			t.Fatalf("insert+remove at %s:\n got %q\nwant %q\n mid %q", p, e.Bytes(), want, mid)
		}
	}
}

func TestRoundTripSamples(t *testing.T) {
	t.Parallel()
	for _, s := range fuzzSeeds {
		checkRoundTrip(t, []byte(s))
	}
}

var fuzzSeeds = []string{
	`{}`, "{}\n", "{\n}", `{ }`, `{"a":1}`, "{\n  \"a\": [1, 2],\n  \"b\": {\"c\": []}\n}\n",
	"{\r\n\t\"hooks\": {\r\n\t\t\"Stop\": [\r\n\t\t\t{\"hooks\": []}\r\n\t\t]\r\n\t}\r\n}",
	`{"a" : [ ] , "b" :{"x":"\"}]"}}`, "  {\"k\":[[],[{}],\"\\u00e9\"]}  ",
	"{\n    \"a\": 1,\n    \"a\": {\"dup\": true}\n}",
}

func FuzzInsertRemove(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRoundTrip(t, data)
	})
}
