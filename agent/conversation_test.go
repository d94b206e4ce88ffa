package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

// Long strings are cut to about the limit, never inside an escape, and the
// line stays valid JSON that decodes to the strings' beginnings.
func TestShrinkLongStrings(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ab\\n", 50) + strings.Repeat("\\u00e9", 40)
	line := []byte(`{"a":"short","b":"` + long + `","c":["` + long + `"]}`)
	out, cut := ShrinkLongStrings(line, 64, 0)
	var v struct {
		A string   `json:"a"`
		B string   `json:"b"`
		C []string `json:"c"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if v.A != "short" || !strings.HasPrefix(v.B, "ab\nab\n") || !strings.Contains(v.B, " bytes more]") || v.C[0] != v.B || cut <= 0 {
		t.Errorf("shrunk: %+v, cut %d", v, cut)
	}
	if same, n := ShrinkLongStrings([]byte(`{"a":"b"}`), 64, 0); string(same) != `{"a":"b"}` || n != 0 {
		t.Errorf("a short line changed: %s %d", same, n)
	}
}

func FuzzShrinkLongStrings(f *testing.F) {
	f.Add([]byte(`{"a":"`+strings.Repeat("x\\u00e9\\\\\\\"", 30)+`"}`), 20)
	f.Add([]byte(`["`+strings.Repeat("\\ud83d\\ude00", 10)+`", 1]`), 7)
	f.Fuzz(func(t *testing.T, line []byte, limit int) {
		if limit < 0 || limit > 1<<16 || !json.Valid(line) {
			return
		}
		out, _ := ShrinkLongStrings(line, limit, limit*2)
		if !json.Valid(out) {
			t.Fatalf("ShrinkLongStrings(%q, %d) = %q: not JSON", line, limit, out)
		}
	})
}
