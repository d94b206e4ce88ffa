package lines

import (
	"reflect"
	"strings"
	"testing"
)

func text(ls ...string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

func TestAttributeFollowsLinesThroughTheChain(t *testing.T) {
	base := text("a", "b", "c")
	steps := []Step{
		{Text: text("a", "t1", "b", "c"), Owner: 1},           // turn 1 adds t1
		{Text: text("a", "t1", "b", "c", "h"), Owner: Person}, // the person adds h
		{Text: text("a", "t1", "B2", "c", "h", "t2"), Owner: 2},
		{Text: text("a", "T1", "B2", "c", "h", "t2"), Owner: Person}, // rewrites t1
	}
	got := Ranges(Attribute(base, steps))
	want := []Range{
		{Start: 2, End: 2, Turn: 1, Mixed: true},
		{Start: 3, End: 3, Turn: 2},
		{Start: 5, End: 5, Turn: Person},
		{Start: 6, End: 6, Turn: 2},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ranges = %+v, want %+v", got, want)
	}
}

func TestAttributeLastLineWithoutNewline(t *testing.T) {
	got := Ranges(Attribute("x", []Step{{Text: "x\ny", Owner: 3}}))
	// "x" became "x\n": as in git, the line gained its newline and changed.
	if !reflect.DeepEqual(got, []Range{{Start: 1, End: 2, Turn: 3}}) {
		t.Fatalf("ranges = %+v", got)
	}
}

func TestMapLines(t *testing.T) {
	a := text("1", "2", "3", "4")
	b := text("0", "1", "3", "4", "5")
	if got, want := MapLines(a, b), []int{0, 1, 3, 4, 0}; !reflect.DeepEqual(got, want) {
		t.Fatalf("MapLines = %v, want %v", got, want)
	}
	if n, ok := MapLine(a, b, 3); !ok || n != 3 {
		t.Fatalf("MapLine(3) = %d %v", n, ok)
	}
}

func TestLookupAndParse(t *testing.T) {
	r := &Record{Commit: "c", Files: map[string]FileLines{"f": {Lines: 9, Ranges: []Range{{1, 2, 1, false}, {5, 7, 0, false}}}}}
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	f := back.Files["f"]
	for n, want := range map[int]int{1: 1, 2: 1, 5: 0, 7: 0} {
		if rg, ok := f.Lookup(n); !ok || rg.Turn != want {
			t.Errorf("line %d: %+v %v", n, rg, ok)
		}
	}
	for _, n := range []int{3, 4, 8, 0} {
		if _, ok := f.Lookup(n); ok {
			t.Errorf("line %d found", n)
		}
	}
	for _, bad := range []string{`{"version":2}`, `{"version":1,"files":{"f":{"ranges":[{"start":3,"end":2}]}}}`, `{"version":1,"files":{"f":{"ranges":[{"start":1,"end":2},{"start":2,"end":3}]}}}`, `nope`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%s) accepted", bad)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"version":1,"commit":"c","files":{"f":{"blob":"b","lines":3,"ranges":[{"start":1,"end":2,"turn":1}]}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Parse(b)
		if err != nil {
			return
		}
		for _, fl := range r.Files {
			for n := -1; n < 5; n++ {
				fl.Lookup(n)
			}
		}
	})
}

func FuzzAttribute(f *testing.F) {
	f.Add("a\nb\n", "a\nc\nb\n", "c\nb\nd")
	f.Fuzz(func(t *testing.T, base, s1, s2 string) {
		owners := Attribute(base, []Step{{Text: s1, Owner: 1}, {Text: s2, Owner: Person}})
		if len(owners) != countLines(s2) {
			t.Fatalf("%d owners for %d lines", len(owners), countLines(s2))
		}
		m := MapLines(base, s2)
		if len(m) != countLines(s2) {
			t.Fatalf("MapLines: %d for %d lines", len(m), countLines(s2))
		}
	})
}

func TestUnified(t *testing.T) {
	a := text("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12")
	b := text("1", "2", "x", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13")
	want := "@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+x\n 4\n 5\n 6\n@@ -10,3 +10,4 @@\n 10\n 11\n 12\n+13\n"
	if got := Unified(a, b); got != want {
		t.Fatalf("Unified =\n%s\nwant\n%s", got, want)
	}
	if Unified(a, a) != "" {
		t.Fatal("equal texts gave a diff")
	}
}

func TestMapLinesFromFingerprint(t *testing.T) {
	old := text("a", "b", "c", "d")
	f := FileLines{Fingerprint: Fingerprint(old)}
	got := f.MapLinesFrom(text("z", "a", "c", "d", "e"))
	if want := []int{0, 1, 3, 4, 0}; !reflect.DeepEqual(got, want) {
		t.Fatalf("MapLinesFrom = %v, want %v", got, want)
	}
	if (FileLines{Fingerprint: "!!"}).MapLinesFrom(old) != nil {
		t.Fatal("a malformed fingerprint mapped")
	}
}
