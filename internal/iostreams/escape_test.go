package iostreams

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain \"quoted\" \\ text\nnext\tline", "plain \"quoted\" \\ text\nnext\tline"},
		{"red \x1b[31mALERT\x1b[0m", `red \x1b[31mALERT\x1b[0m`},
		{"title \x1b]0;pwned\x07", `title \x1b]0;pwned\a`},
		{"over\rwrite\b", `over\rwrite\b`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bidi \u202egnp.exe", `bidi \u202egnp.exe`},
		{"bad \xff utf8", `bad \xff utf8`},
		{"émoji 👍 ok", "émoji 👍 ok"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("a\x1b[2Jb\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		out := Escape(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Escape(%q) = %q is not UTF-8", s, out)
		}
		for _, r := range out {
			if unsafeRune(r) {
				t.Fatalf("Escape(%q) = %q keeps %U", s, out, r)
			}
		}
	})
}

func TestPrintfEscapesAndToleratesNil(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	Printf(&b, "rewound %s to %d\n", "evil\x1b[2Jname", 3)
	if got, want := b.String(), "rewound evil\\x1b[2Jname to 3\n"; got != want {
		t.Fatalf("Printf wrote %q, want %q", got, want)
	}
	Printf(nil, "nothing %s", "here") // must not panic
}
