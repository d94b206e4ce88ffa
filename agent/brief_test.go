package agent

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// shorten feeds line to a briefer in pieces of random sizes.
func shorten(line []byte, rng *rand.Rand) []byte {
	var w Briefer
	for len(line) > 0 {
		n := min(len(line), 1+rng.IntN(300<<10))
		w.Write(line[:n])
		line = line[n:]
	}
	return w.Line()
}

// A shortened line is the same JSON with its long strings cut to their
// ends between escape sequences; short strings and the structure are
// untouched.
func TestBrieferKeepsStructure(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "é", `\"`, `\\`, `\n`, `\u00e9`, `\ud83d\ude00`, "{", "}", ":", ","}
	str := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for i := range 30 {
		long := str(briefString + rng.IntN(3*briefString))
		short := str(rng.IntN(1000))
		line := []byte(`{"type":"user","key":"` + short + `","message":{"content":[{"type":"tool_result","content":"` + long + `"},{"type":"text","text":"` + short + `"}]},"n":` + string(rune('0'+i%10)) + `}`)
		got := shorten(line, rng)
		if !json.Valid(got) {
			t.Fatalf("case %d: shortened line is not JSON", i)
		}
		var v struct {
			Type    string `json:"type"`
			Key     string `json:"key"`
			N       int    `json:"n"`
			Message struct {
				Content []map[string]string `json:"content"`
			} `json:"message"`
		}
		var want struct {
			Message struct {
				Content []map[string]string `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal(got, &v); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatal(err)
		}
		if v.Type != "user" || !strings.Contains(string(line), `"key":"`+short) || v.N != i%10 || len(v.Message.Content) != 2 || !reflect.DeepEqual(v.Message.Content[1], want.Message.Content[1]) {
			t.Fatalf("case %d: structure or short strings changed: %+v", i, v)
		}
		full, cut := want.Message.Content[0]["content"], v.Message.Content[0]["content"]
		if len(cut) > 2*briefKeep+16 || len(cut) < briefKeep {
			t.Fatalf("case %d: long string kept %d of %d bytes", i, len(cut), len(full))
		}
		// Decoded, the ends are the original's (but for the rune an
		// escape cut in two may have changed at each cut).
		if !strings.HasPrefix(full, cut[:briefKeep/2]) || !strings.HasSuffix(full, cut[len(cut)-briefKeep/2:]) {
			t.Fatalf("case %d: the kept ends are not the string's", i)
		}
	}
}

// ForEachBriefLine passes short lines as they are and shortens long ones
// as it reads them.
func TestForEachBriefLine(t *testing.T) {
	t.Parallel()
	big := `{"a":"` + strings.Repeat("x", 2*BriefAbove) + `"}`
	in := "{\"s\":1}\n" + big + "\n" + `{"t":2}` + "\n" + "partial"
	var got []string
	consumed, lines, err := ForEachBriefLine(strings.NewReader(in), func(l []byte) error {
		got = append(got, string(l))
		return nil
	})
	if err != nil || lines != 3 || consumed != int64(len(in)-len("partial")) {
		t.Fatalf("consumed %d lines %d err %v", consumed, lines, err)
	}
	want := `{"a":"` + strings.Repeat("x", 2*briefKeep) + `"}`
	if got[0] != `{"s":1}` || got[1] != want || got[2] != `{"t":2}` {
		t.Fatalf("lines %q..., %d bytes, %q", got[0], len(got[1]), got[2])
	}

}
