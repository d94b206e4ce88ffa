package rewind

import (
	"bytes"
	"strings"
	"testing"
)

func TestLineDelta(t *testing.T) {
	t.Parallel()
	base := "{\"a\":1}\n{\"b\":\"[REDACTED]\"}\n{\"c\":3}\n"
	for _, c := range []struct {
		name, base, cur string
		saved           string // the bytes the delta saves
		ops             int
	}{
		{"cut tail", base, base + "{\"d\":4}\n{\"e\":5}\n", "{\"d\":4}\n{\"e\":5}\n", 2},
		{"redacted line", base, strings.Replace(base, "[REDACTED]", "ghp_secret", 1) + "{\"d\":4}\n", "{\"b\":\"ghp_secret\"}\n{\"d\":4}\n", 4},
		{"line dropped from the base", "x\ny\nz\n", "x\nlifted\ny\nz\n", "lifted\n", 3},
		{"unrelated", "p\nq\n", "r\ns", "r\ns", 1},
		{"empty base", "", "r\n", "r\n", 1},
		{"empty cur", "p\n", "", "", 0},
		{"same", base, base, "", 1},
	} {
		var b dataBuilder
		ops := lineDelta([]byte(c.base), []byte(c.cur), &b)
		if string(b.buf) != c.saved || len(ops) != c.ops {
			t.Errorf("%s: saved %q in %d ops, want %q in %d", c.name, b.buf, len(ops), c.saved, c.ops)
		}
		got, err := applyDelta([]byte(c.base), b.buf, ops, int64(len(c.cur)))
		if err != nil || string(got) != c.cur {
			t.Errorf("%s: rebuilt %q %v", c.name, got, err)
		}
	}
	if _, err := applyDelta([]byte("abc"), nil, []deltaOp{{Copy: &span{Off: 2, Len: 5}}}, 5); err == nil {
		t.Error("copy past the base accepted")
	}
	if _, err := applyDelta([]byte("abc"), nil, []deltaOp{{Copy: &span{Off: 0, Len: 3}}}, 2); err == nil {
		t.Error("result longer than declared accepted")
	}
	if _, err := applyDelta([]byte("abc"), nil, []deltaOp{{}}, 0); err == nil {
		t.Error("empty op accepted")
	}
}

func FuzzLineDelta(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nb\nc\nd\n"))
	f.Add([]byte("a\nX\nc"), []byte("a\nY\nc\nc\na\n"))
	f.Fuzz(func(t *testing.T, base, cur []byte) {
		var b dataBuilder
		ops := lineDelta(base, cur, &b)
		got, err := applyDelta(base, b.buf, ops, int64(len(cur)))
		if err != nil || !bytes.Equal(got, cur) {
			t.Fatalf("rebuilt %q (%v), want %q", got, err, cur)
		}
		if len(b.buf) > len(cur) {
			t.Fatalf("saved %d bytes of a %d-byte file", len(b.buf), len(cur))
		}
	})
}
