package geminicli

import (
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
)

func TestPlanHide(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("y", 300)
	for _, tt := range []struct {
		raw, want string
	}{
		{`{"llmContent":"` + big + `","returnDisplay":"ok"}`, big},
		{`{"llmContent":[{"text":"` + big + `"},{"text":"z"}],"returnDisplay":"ok"}`, big + "\nz"},
		{`{"llmContent":"small","returnDisplay":"` + big + `"}`, ""},
		{`{"error":"boom"}`, ""},
		{`[1,2]`, ""},
	} {
		p, ok := New().PlanHide(&agent.HookInput{ToolName: "read_file", ToolResponse: []byte(tt.raw)}, 200)
		switch {
		case tt.want == "" && ok:
			t.Errorf("%s: plan %q, want none", tt.raw[:20], p.Text)
		case tt.want != "" && (!ok || p.Text != tt.want):
			t.Errorf("%s: plan %+v", tt.raw[:20], p)
		case ok:
			if a := p.Answer("P", "N"); a["decision"] != "deny" || a["reason"] != "P" || len(a) != 2 {
				t.Errorf("answer %v, want a deny with the page as reason", a)
			}
		}
	}
}

func FuzzHideText(f *testing.F) {
	f.Add([]byte(`{"llmContent":[{"text":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}]}`))
	f.Add([]byte(`{"llmContent":"aaaaaaaaaaaaaaaaaaaa"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if text, ok := hideText(raw, 10); ok && len(text) <= 10 {
			t.Fatalf("plan of %d bytes under threshold", len(text))
		}
	})
}
