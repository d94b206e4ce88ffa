package explain

import (
	"strings"
	"testing"
)

func readIncremental(out string) (*incremental, []string, error) {
	var named []string
	inc := &incremental{lines: map[int]BlameLine{}, seen: map[string]bool{}, maxLine: 1000, onCommit: func(s string) { named = append(named, s) }}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if err := inc.line([]byte(l)); err != nil {
			return nil, nil, err
		}
	}
	return inc, named, nil
}

func TestIncremental(t *testing.T) {
	c1, c0 := strings.Repeat("a", 40), strings.Repeat("0", 40)
	out := c1 + " 3 1 2\nauthor A\nsummary s\nfilename old/name.go\n" + c0 + " 3 3 1\nauthor Not Committed Yet\nfilename name.go\n" + c1 + " 9 4 1\nfilename \"t\\tab.go\"\n"
	inc, named, err := readIncremental(out)
	if err != nil {
		t.Fatal(err)
	}
	l := inc.lines
	if len(l) != 4 || l[1].Commit != c1 || l[1].OrigLine != 3 || l[2].OrigLine != 4 || l[2].Path != "old/name.go" ||
		l[3].Commit != "" || l[3].Path != "name.go" || l[4].Path != "t\tab.go" || len(named) != 2 {
		t.Fatalf("read %+v, commits %v", l, named)
	}
	for _, bad := range []string{"xyz 1 2 3", c1 + " a b c", c1 + " 1 1", c1 + " 0 1 1", c1 + " 1 999 5"} {
		if _, _, err := readIncremental(bad); err == nil {
			t.Errorf("read %q", bad)
		}
	}
}

func FuzzIncremental(f *testing.F) {
	f.Add(strings.Repeat("a", 40) + " 1 1 1\nfilename x\n")
	f.Fuzz(func(t *testing.T, out string) {
		inc, _, err := readIncremental(out)
		if err != nil {
			return
		}
		for n, l := range inc.lines {
			if n != l.Line || (l.Commit != "" && len(l.Commit) != 40) {
				t.Fatalf("line %d: %+v", n, l)
			}
		}
	})
}

func TestGitAIRanges(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{{[]int{1, 2, 3, 5, 7, 8}, "1-3,5,7-8"}, {[]int{4}, "4"}, {nil, ""}} {
		if got := gitAIRanges(tc.in); got != tc.want {
			t.Errorf("gitAIRanges(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if gitAIPath("a b.go") != `"a b.go"` || gitAIPath("ab.go") != "ab.go" {
		t.Error("gitAIPath")
	}
	k, tool := gitAIKey("Unknown Agent", "s1")
	if len(k) != 16 || tool != "unknown-agent" {
		t.Errorf("gitAIKey = %q %q", k, tool)
	}
}
