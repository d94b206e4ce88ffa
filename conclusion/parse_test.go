package conclusion

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func wrap(body string) string { return OpenTag + body + CloseTag }

func TestParseFindsLastBlock(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		raw         string
		wantOK      bool
		wantSummary string
	}{
		{name: "empty", raw: "", wantOK: false},
		{name: "no tags", raw: "all done, summary: yes", wantOK: false},
		{name: "open only", raw: OpenTag + "summary: a", wantOK: false},
		{name: "close only", raw: "summary: a" + CloseTag, wantOK: false},
		{name: "open after the last close", raw: CloseTag + " " + OpenTag + "summary: a", wantOK: false},
		{name: "one block", raw: "text\n" + wrap("\nsummary: one\n") + "\n", wantOK: true, wantSummary: "one"},
		{name: "last of two wins", raw: wrap("summary: first") + "\nmore\n" + wrap("summary: second"), wantOK: true, wantSummary: "second"},
		{name: "stray open after last close ignored", raw: wrap("summary: kept") + "\n" + OpenTag + "summary: stray", wantOK: true, wantSummary: "kept"},
		{name: "pando tags read", raw: "<pando:conclusion>summary: p</pando:conclusion>", wantOK: true, wantSummary: "p"},
		{name: "later pando block wins", raw: wrap("summary: e") + "<pando:conclusion>summary: p</pando:conclusion>", wantOK: true, wantSummary: "p"},
		{name: "later entire block wins", raw: "<pando:conclusion>summary: p</pando:conclusion>" + wrap("summary: e"), wantOK: true, wantSummary: "e"},
		{name: "tags of different families do not pair", raw: "<pando:conclusion>summary: x" + CloseTag, wantOK: false},
		{name: "incomplete later family ignored", raw: wrap("summary: e") + "</pando:conclusion>", wantOK: true, wantSummary: "e"},
		{name: "empty block", raw: wrap(""), wantOK: true, wantSummary: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, ok := Parse(tt.raw)
			if ok != tt.wantOK {
				t.Fatalf("Parse ok = %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				if c != nil {
					t.Fatalf("Parse returned %+v with ok=false", c)
				}
				return
			}
			if c.Summary != tt.wantSummary {
				t.Errorf("Summary = %q, want %q", c.Summary, tt.wantSummary)
			}
		})
	}
}

func TestParseBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want Conclusion
	}{
		{
			name: "complete block",
			body: `
status: success
summary: |
  Added the login form.
  Tests pass.
artifacts:
  - web/login.go
  - web/login_test.go
memory_refs:
  - auth-flow
follow_up: wire the logout button
confidence: 0.85
`,
			want: Conclusion{
				Status:     StatusSuccess,
				Summary:    "Added the login form.\nTests pass.",
				Artifacts:  []string{"web/login.go", "web/login_test.go"},
				MemoryRefs: []string{"auth-flow"},
				FollowUp:   "wire the logout button",
				Confidence: 0.85,
			},
		},
		{
			name: "the brief's own template parses cleanly",
			body: briefTemplateBody(),
			want: Conclusion{
				Status:     StatusSuccess,
				Summary:    "What was done, and the outcome.",
				Artifacts:  []string{"path/to/file"},
				MemoryRefs: []string{"<id>"},
				FollowUp:   "<what remains, or leave empty>",
				Confidence: 0.9,
			},
		},
		{
			name: "status case and space insensitive, unknown keys ignored",
			body: "status: ' PARTIAL '\nsummary: s\nengine: gpt\ntask_id: 7",
			want: Conclusion{Status: StatusPartial, Summary: "s"},
		},
		{
			name: "scalar types coerced to strings",
			body: "status: blocked\nsummary: 42\nfollow_up: true",
			want: Conclusion{Status: StatusBlocked, Summary: "42", FollowUp: "true"},
		},
		{
			name: "summary and follow_up trimmed",
			body: "summary: \"  padded  \"\nfollow_up: \"\\n next \\n\"",
			want: Conclusion{Summary: "padded", FollowUp: "next"},
		},
		{
			name: "unknown status",
			body: "status: done\nsummary: s",
			want: Conclusion{Summary: "s", Warnings: []string{`unknown status "done"; left for software default`}},
		},
		{
			name: "confidence above range",
			body: "summary: s\nconfidence: 1.5",
			want: Conclusion{Summary: "s", Confidence: 1, Warnings: []string{"confidence 1.5 out of range [0,1]; clamped"}},
		},
		{
			name: "confidence below range",
			body: "summary: s\nconfidence: -0.2",
			want: Conclusion{Summary: "s", Confidence: 0, Warnings: []string{"confidence -0.2 out of range [0,1]; clamped"}},
		},
		{
			name: "confidence infinite",
			body: "summary: s\nconfidence: .inf",
			want: Conclusion{Summary: "s", Confidence: 1, Warnings: []string{"confidence +Inf out of range [0,1]; clamped"}},
		},
		{
			name: "confidence NaN",
			body: "summary: s\nconfidence: .nan",
			want: Conclusion{Summary: "s", Confidence: 0, Warnings: []string{"confidence NaN out of range [0,1]; clamped"}},
		},
		{
			name: "confidence bounds are in range",
			body: "summary: s\nconfidence: 1",
			want: Conclusion{Summary: "s", Confidence: 1},
		},
		{
			name: "blank entries dropped, kept entries not trimmed",
			body: "summary: s\nartifacts: [' a.go ', '', '  ']\nmemory_refs: [k, ' ']",
			want: Conclusion{
				Summary:    "s",
				Artifacts:  []string{" a.go "},
				MemoryRefs: []string{"k"},
				Warnings:   []string{"dropped 2 blank artifacts entries", "dropped 1 blank memory_refs entry"},
			},
		},
		{
			// yaml.v3 skips null sequence items itself; there is nothing to warn about.
			name: "null list entry skipped",
			body: "summary: s\nartifacts: [a, null]",
			want: Conclusion{Summary: "s", Artifacts: []string{"a"}},
		},
		{
			name: "missing summary",
			body: "status: success\nartifacts: [a.go]",
			want: Conclusion{Status: StatusSuccess, Artifacts: []string{"a.go"}, Warnings: []string{"missing summary"}},
		},
		{
			name: "empty body salvaged",
			body: "\n  \n",
			want: Conclusion{Summary: "", Warnings: []string{"conclusion body was not a YAML mapping; salvaged raw text"}},
		},
		{
			name: "only confidence: salvaged, confidence kept",
			body: "\nconfidence: 0.5\n",
			want: Conclusion{Summary: "confidence: 0.5", Confidence: 0.5, Warnings: []string{"conclusion body was not a YAML mapping; salvaged raw text"}},
		},
		{
			name: "only an unknown status: both warnings",
			body: "status: great",
			want: Conclusion{Summary: "status: great", Warnings: []string{
				`unknown status "great"; left for software default`,
				"conclusion body was not a YAML mapping; salvaged raw text",
			}},
		},
		{
			name: "all warnings in order",
			body: "status: Done!\nconfidence: 7\nartifacts: [' ']\nmemory_refs: ['', '']\nfollow_up: more",
			want: Conclusion{FollowUp: "more", Confidence: 1, Warnings: []string{
				`unknown status "Done!"; left for software default`,
				"confidence 7 out of range [0,1]; clamped",
				"dropped 1 blank artifacts entry",
				"dropped 2 blank memory_refs entries",
				"missing summary",
			}},
		},
		// YAML errors: only the salvaged summary and one warning.
		{
			name: "bad syntax",
			body: "\nstatus: success\nsummary: [unclosed\n",
			want: Conclusion{Summary: "status: success\nsummary: [unclosed", Warnings: []string{"conclusion body was not valid YAML; salvaged raw text"}},
		},
		{
			name: "scalar body",
			body: "  I fixed the bug and all tests pass.  ",
			want: Conclusion{Summary: "I fixed the bug and all tests pass.", Warnings: []string{"conclusion body was not valid YAML; salvaged raw text"}},
		},
		{
			name: "artifacts not a list",
			body: "status: success\nsummary: s\nartifacts: foo",
			want: Conclusion{Summary: "status: success\nsummary: s\nartifacts: foo", Warnings: []string{"conclusion body was not valid YAML; salvaged raw text"}},
		},
		{
			name: "confidence not a number",
			body: "status: success\nconfidence: high",
			want: Conclusion{Summary: "status: success\nconfidence: high", Warnings: []string{"conclusion body was not valid YAML; salvaged raw text"}},
		},
		{
			name: "summary is a mapping",
			body: "summary: {a: b}",
			want: Conclusion{Summary: "summary: {a: b}", Warnings: []string{"conclusion body was not valid YAML; salvaged raw text"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, ok := Parse("final words\n" + wrap(tt.body) + "\n")
			if !ok {
				t.Fatal("Parse found no block")
			}
			if !reflect.DeepEqual(*c, tt.want) {
				t.Errorf("Parse =\n%#v\nwant\n%#v", *c, tt.want)
			}
		})
	}
}

// briefTemplateBody is the block template inside BriefInstruction.
func briefTemplateBody() string {
	s := BriefInstruction()
	start := strings.Index(s, OpenTag) + len(OpenTag)
	end := strings.Index(s, CloseTag)
	return s[start:end]
}

func TestParseConfidenceNeverNaN(t *testing.T) {
	t.Parallel()
	c, _ := Parse(wrap("summary: s\nconfidence: .NaN"))
	if math.IsNaN(c.Confidence) {
		t.Fatal("confidence is NaN")
	}
}
