package conclusion

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that Parse never panics, that what it returns is always
// storable as JSON and renderable, and that its invariants hold.
func FuzzParse(f *testing.F) {
	f.Add(wrap("\nstatus: success\nsummary: |\n  done\nartifacts: [a]\nconfidence: 0.9\n"))
	f.Add(wrap("status: nope\nconfidence: 9\nartifacts: [' ', '']\nmemory_refs: ['']"))
	f.Add(wrap("confidence: .nan"))
	f.Add(wrap("summary: [unclosed"))
	f.Add(wrap("&a [*a, *a]"))
	f.Add("<pando:conclusion>summary: p</pando:conclusion>" + OpenTag)
	f.Add(CloseTag + OpenTag + CloseTag + CloseTag)
	f.Add("no block at all")
	f.Fuzz(func(t *testing.T, raw string) {
		checkParse(t, raw)
		checkParse(t, wrap(raw)) // reach the YAML paths more often
	})
}

// checkParse asserts Parse's invariants on one input.
func checkParse(t *testing.T, raw string) {
	t.Helper()
	c, ok := Parse(raw)
	if !ok {
		if c != nil {
			t.Fatal("conclusion returned with ok=false")
		}
		if strings.Contains(raw, CloseTag) && strings.Contains(raw[:strings.LastIndex(raw, CloseTag)], OpenTag) {
			t.Fatal("complete block not found")
		}
		return
	}
	if c == nil {
		t.Fatal("nil conclusion with ok=true")
	}
	if !strings.Contains(raw, CloseTag) && !strings.Contains(raw, pandoCloseTag) {
		t.Fatal("block found without a closing tag")
	}
	switch c.Status {
	case "", StatusSuccess, StatusPartial, StatusFailed, StatusBlocked:
	default:
		t.Fatalf("status %q outside the vocabulary", c.Status)
	}
	if math.IsNaN(c.Confidence) || c.Confidence < 0 || c.Confidence > 1 {
		t.Fatalf("confidence %v outside [0,1]", c.Confidence)
	}
	for _, list := range [][]string{c.Artifacts, c.MemoryRefs} {
		for _, e := range list {
			if strings.TrimSpace(e) == "" {
				t.Fatalf("blank entry kept: %q", list)
			}
		}
	}
	if c.Warnings != nil && len(c.Warnings) == 0 {
		t.Fatal("empty non-nil warnings")
	}
	if strings.TrimSpace(c.Summary) != c.Summary || strings.TrimSpace(c.FollowUp) != c.FollowUp {
		t.Fatal("summary or follow_up not trimmed")
	}
	if _, err := json.Marshal(c); err != nil {
		t.Fatalf("conclusion not storable: %v", err)
	}
	out := FormatForParent(&Task{ID: "t", Engine: "e", Conclusion: c}, nil)
	if !strings.HasPrefix(out, "[delegated-result task=t engine=e project=unknown status=") {
		t.Fatalf("bad header: %q", out)
	}
}

// FuzzEnrich checks that synthesizing never panics, keeps the summary within
// its bound and is always storable. The output is a short fuzzed piece
// repeated, so that long outputs are reached from short inputs (which keeps
// the fuzzer's minimization fast).
func FuzzEnrich(f *testing.F) {
	f.Add("some output ", uint16(1), "", "", 0, true)
	f.Add("é", uint16(700), " ", "err", 3, false)
	f.Add("😀 ", uint16(333), "", "", 1, true)
	f.Fuzz(func(t *testing.T, piece string, repeat uint16, tail, errText string, exit int, completed bool) {
		output := strings.Repeat(piece, int(repeat%2048))
		task := &Task{Status: TaskFailed, Output: output, OutputTail: tail, Error: errText, ExitCode: &exit}
		if completed {
			task.Status = TaskCompleted
		}
		c := Enrich(task, DelegationOptions{SynthesizeFallback: true}, nil)
		if c == nil {
			t.Fatal("nil conclusion with fallback on")
		}
		if c.Status == "" {
			t.Fatal("status not defaulted")
		}
		if c.Synthesized && completed && len(c.Summary) > synthesizedSummaryTailBytes {
			t.Fatalf("summary is %d bytes", len(c.Summary))
		}
		if c.Synthesized && completed && utf8.ValidString(output) && utf8.ValidString(tail) && !utf8.ValidString(c.Summary) {
			t.Fatal("the cut split a rune")
		}
		if _, err := json.Marshal(c); err != nil {
			t.Fatalf("conclusion not storable: %v", err)
		}
	})
}
