package strategy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/entirecli/entire/checkpoint/lines"
)

// A condensation of many files splits their line record between two
// goroutines (lineRecordShards): every file is there, each line with the
// turn that wrote it or the person, and each turn with the diffs of every
// file it changed.
func TestLineRecordOfManyFiles(t *testing.T) {
	t.Parallel()
	r := newMCRepo(t)
	const n = 3 * lineShardMin
	first, second := map[string]string{}, map[string]string{}
	var paths []string
	for i := range n {
		p := fmt.Sprintf("pkg/f%02d.txt", i)
		paths = append(paths, p)
		first[p] = fmt.Sprintf("one %d\none more %d\n", i, i)
		if i%3 == 0 {
			second[p] = first[p] + fmt.Sprintf("two %d\n", i)
		}
	}
	r.turn("s1", "write the files", first, 1, 1)
	r.write(map[string]string{"pkg/f01.txt": first["pkg/f01.txt"] + "mine\n"})
	r.turn("s1", "add to a third", second, 1, 1)
	id := r.commit("commit", paths...)
	if id == "" {
		t.Fatal("commit not linked")
	}
	b, err := r.slot(id, "s1").File(lines.File)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := lines.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Files) != n {
		t.Fatalf("%d files recorded, want %d", len(rec.Files), n)
	}
	for i, p := range paths {
		want := []int{1, 1}
		switch {
		case i%3 == 0:
			want = append(want, 2)
		case i == 1:
			want = append(want, 0)
		}
		f := rec.Files[p]
		var got []int
		for l := 1; l <= f.Lines; l++ {
			rg, ok := f.Lookup(l)
			if !ok {
				t.Fatalf("%s:%d not recorded", p, l)
			}
			got = append(got, rg.Turn)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: turns %v, want %v", p, got, want)
		}
	}
	if len(rec.Turns) != 2 || rec.Turns[0].Turn != 1 || rec.Turns[1].Turn != 2 {
		t.Fatalf("turns %+v", rec.Turns)
	}
	if len(rec.Turns[0].Diffs) != n || len(rec.Turns[1].Diffs) != len(second) {
		t.Errorf("diffs of %d and %d files, want %d and %d", len(rec.Turns[0].Diffs), len(rec.Turns[1].Diffs), n, len(second))
	}
	if d := rec.Turns[1].Diffs["pkg/f03.txt"]; !strings.Contains(d, "+two 3") {
		t.Errorf("turn 2's diff of f03: %q", d)
	}
}
