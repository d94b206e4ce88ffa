package conclusion

import (
	"strings"
	"testing"
)

func TestBriefInstruction(t *testing.T) {
	t.Parallel()
	s := BriefInstruction()
	if !strings.HasPrefix(s, "\n\n---\n") {
		t.Errorf("does not start with a separator: %q", s[:10])
	}
	if strings.Count(s, OpenTag) != 1 || strings.Count(s, CloseTag) != 1 {
		t.Error("want exactly one open and one close tag")
	}
	// The template's fields, in order.
	last := -1
	for _, key := range []string{"\nstatus: success", "\nsummary: |", "\nartifacts:", "\n  - path/to/file",
		"\nmemory_refs:", "\n  - <id>", "\nfollow_up: <what remains, or leave empty>", "\nconfidence: 0.9"} {
		i := strings.Index(s, key)
		if i <= last {
			t.Fatalf("template field %q missing or out of order", key)
		}
		last = i
	}
	for _, want := range []string{"success | partial | failed | blocked", "REQUIRED", "[0.0, 1.0]", "exactly once"} {
		if !strings.Contains(s, want) {
			t.Errorf("instruction lacks %q", want)
		}
	}
	// A model that copies the template verbatim produces a clean block.
	c, ok := Parse("I am done.\n" + briefTemplateBlock(s))
	if !ok || c.Warnings != nil || c.Status != StatusSuccess || c.Confidence != 0.9 {
		t.Errorf("template parses as %+v, %v", c, ok)
	}
}

func briefTemplateBlock(s string) string {
	return s[strings.Index(s, OpenTag) : strings.Index(s, CloseTag)+len(CloseTag)]
}
