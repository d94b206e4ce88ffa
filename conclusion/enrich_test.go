package conclusion

import (
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var fixedNow = time.Date(2026, 11, 22, 4, 5, 6, 0, time.FixedZone("CET", 3600))

func intPtr(n int) *int { return &n }

func TestEnrichNilTask(t *testing.T) {
	t.Parallel()
	if c := Enrich(nil, DelegationOptions{SynthesizeFallback: true}, nil); c != nil {
		t.Fatalf("Enrich(nil) = %+v, want nil", c)
	}
}

func TestEnrich(t *testing.T) {
	t.Parallel()
	synth := DelegationOptions{SynthesizeFallback: true, Now: func() time.Time { return fixedNow }}
	plain := DelegationOptions{Now: func() time.Time { return fixedNow }}
	tests := []struct {
		name string
		task Task
		opts DelegationOptions
		want *Conclusion // CapturedAt is checked separately
	}{
		{
			name: "block in output",
			task: Task{Status: TaskCompleted, Output: "done\n" + wrap("status: partial\nsummary: half\nconfidence: 0.4")},
			opts: plain,
			want: &Conclusion{Status: StatusPartial, Summary: "half", Confidence: 0.4},
		},
		{
			name: "block only in the tail",
			task: Task{Status: TaskCompleted, Output: "head of a long output", OutputTail: wrap("status: success\nsummary: tail")},
			opts: plain,
			want: &Conclusion{Status: StatusSuccess, Summary: "tail"},
		},
		{
			name: "output block preferred over tail block",
			task: Task{Status: TaskCompleted, Output: wrap("summary: out"), OutputTail: wrap("summary: tail")},
			opts: plain,
			want: &Conclusion{Status: StatusSuccess, Summary: "out"},
		},
		{
			name: "missing status defaults from failed task, warnings kept",
			task: Task{Status: TaskFailed, Output: wrap("status: meh\nsummary: s")},
			opts: plain,
			want: &Conclusion{Status: StatusFailed, Summary: "s", Warnings: []string{`unknown status "meh"; left for software default`}},
		},
		{
			name: "missing status defaults from cancelled task",
			task: Task{Status: TaskCancelled, Output: wrap("summary: s")},
			opts: plain,
			want: &Conclusion{Status: StatusBlocked, Summary: "s"},
		},
		{
			name: "missing status defaults to success otherwise",
			task: Task{Status: TaskRunning, Output: wrap("summary: s")},
			opts: plain,
			want: &Conclusion{Status: StatusSuccess, Summary: "s"},
		},
		{
			name: "stated status kept whatever the task status",
			task: Task{Status: TaskFailed, Output: wrap("status: success\nsummary: s")},
			opts: plain,
			want: &Conclusion{Status: StatusSuccess, Summary: "s"},
		},
		{
			name: "no block, no fallback",
			task: Task{Status: TaskCompleted, Output: "just text"},
			opts: plain,
			want: nil,
		},
		{
			name: "synthesized: completed",
			task: Task{Status: TaskCompleted, Output: "  all good  \n"},
			opts: synth,
			want: &Conclusion{Status: StatusSuccess, Summary: "all good", Synthesized: true},
		},
		{
			name: "synthesized: completed with exit 0",
			task: Task{Status: TaskCompleted, Output: "ok", ExitCode: intPtr(0)},
			opts: synth,
			want: &Conclusion{Status: StatusSuccess, Summary: "ok", Synthesized: true},
		},
		{
			name: "synthesized: completed with non-zero exit is partial",
			task: Task{Status: TaskCompleted, Output: "some", ExitCode: intPtr(2)},
			opts: synth,
			want: &Conclusion{Status: StatusPartial, Summary: "some", Synthesized: true},
		},
		{
			name: "synthesized: tail preferred when not blank",
			task: Task{Status: TaskCompleted, Output: "head", OutputTail: " tail "},
			opts: synth,
			want: &Conclusion{Status: StatusSuccess, Summary: "tail", Synthesized: true},
		},
		{
			name: "synthesized: blank tail falls back to output",
			task: Task{Status: TaskCompleted, Output: "head", OutputTail: " \n "},
			opts: synth,
			want: &Conclusion{Status: StatusSuccess, Summary: "head", Synthesized: true},
		},
		{
			name: "synthesized: failed with error and exit code",
			task: Task{Status: TaskFailed, Output: "out", Error: " boom \n", ExitCode: intPtr(3)},
			opts: synth,
			want: &Conclusion{Status: StatusFailed, Summary: "boom (exit code 3)", Synthesized: true},
		},
		{
			name: "synthesized: failed with exit code only",
			task: Task{Status: TaskFailed, Output: "out", ExitCode: intPtr(1)},
			opts: synth,
			want: &Conclusion{Status: StatusFailed, Summary: "(exit code 1)", Synthesized: true},
		},
		{
			name: "synthesized: failed with neither uses output",
			task: Task{Status: TaskFailed, Output: "last words"},
			opts: synth,
			want: &Conclusion{Status: StatusFailed, Summary: "last words", Synthesized: true},
		},
		{
			name: "synthesized: cancelled is blocked",
			task: Task{Status: TaskCancelled, Error: "interrupted by user"},
			opts: synth,
			want: &Conclusion{Status: StatusBlocked, Summary: "interrupted by user", Synthesized: true},
		},
		{
			name: "synthesized: other status gets the default",
			task: Task{Status: TaskRunning, Output: "partway", ExitCode: intPtr(9)},
			opts: synth,
			want: &Conclusion{Status: StatusSuccess, Summary: "partway", Synthesized: true},
		},
		{
			name: "synthesized: empty output",
			task: Task{Status: TaskCompleted},
			opts: synth,
			want: &Conclusion{Status: StatusSuccess, Synthesized: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			task := tt.task
			got := Enrich(&task, tt.opts, nil)
			if tt.want == nil {
				if got != nil {
					t.Fatalf("Enrich = %+v, want nil", got)
				}
				return
			}
			if got == nil {
				t.Fatal("Enrich = nil")
			}
			if !got.CapturedAt.Equal(fixedNow) || got.CapturedAt.Location() != time.UTC {
				t.Errorf("CapturedAt = %v, want %v in UTC", got.CapturedAt, fixedNow)
			}
			got.CapturedAt = time.Time{}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Enrich =\n%#v\nwant\n%#v", got, tt.want)
			}
			if task.Conclusion != nil {
				t.Error("Enrich set task.Conclusion")
			}
		})
	}
}

func TestEnrichDefaultClock(t *testing.T) {
	t.Parallel()
	before := time.Now()
	c := Enrich(&Task{Output: wrap("summary: s")}, DelegationOptions{}, nil)
	if c.CapturedAt.Before(before.Add(-time.Second)) || c.CapturedAt.After(time.Now().Add(time.Second)) {
		t.Fatalf("CapturedAt = %v, not now", c.CapturedAt)
	}
}

func TestEnrichSummaryTail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		output  string
		wantLen int
		suffix  string
	}{
		{name: "ascii cut to last 1000 bytes", output: strings.Repeat("x", 500) + strings.Repeat("y", 1000), wantLen: 1000, suffix: "y"},
		{name: "trimmed before the cut", output: strings.Repeat("a", 1200) + strings.Repeat(" ", 50), wantLen: 1000, suffix: "a"},
		{name: "trimmed after the cut", output: strings.Repeat("a", 1200) + strings.Repeat(" ", 200) + strings.Repeat("b", 900), wantLen: 900, suffix: "b"},
		// 2-byte runes then one ASCII byte: byte 1000 from the end falls
		// inside a rune, so the cut moves forward by one byte.
		{name: "cut never splits a rune", output: strings.Repeat("é", 700) + "a", wantLen: 999, suffix: "éa"},
		{name: "4-byte runes", output: strings.Repeat("😀", 400), wantLen: 1000, suffix: "😀"},
		{name: "4-byte runes, misaligned", output: strings.Repeat("😀", 400) + "ab", wantLen: 998, suffix: "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Enrich(&Task{Status: TaskCompleted, Output: tt.output}, DelegationOptions{SynthesizeFallback: true}, nil)
			if len(c.Summary) != tt.wantLen {
				t.Errorf("len(Summary) = %d, want %d", len(c.Summary), tt.wantLen)
			}
			if !utf8.ValidString(c.Summary) {
				t.Errorf("Summary is not valid UTF-8")
			}
			if !strings.HasSuffix(c.Summary, tt.suffix) || strings.TrimSpace(c.Summary) != c.Summary {
				t.Errorf("Summary = %q...", c.Summary[:20])
			}
		})
	}
}

func TestEnrichResolvesProject(t *testing.T) {
	t.Parallel()
	known := func(path string) (string, string) {
		switch path {
		case "/src/full":
			return "p-1", "Full Name"
		case "/src/idonly":
			return "p-2", ""
		case "/src/nameonly":
			return "", "Only Name"
		}
		return "", ""
	}
	tests := []struct {
		name     string
		task     Task
		resolver ProjectResolver
		wantID   string
		wantName string
	}{
		{name: "id and name", task: Task{ProjectPath: "/src/full"}, resolver: known, wantID: "p-1", wantName: "Full Name"},
		{name: "resolver name replaces existing", task: Task{ProjectPath: "/src/full", ProjectName: "old"}, resolver: known, wantID: "p-1", wantName: "Full Name"},
		{name: "id only: name from path", task: Task{ProjectPath: "/src/idonly"}, resolver: known, wantID: "p-2", wantName: "idonly"},
		{name: "name only", task: Task{ProjectPath: "/src/nameonly"}, resolver: known, wantName: "Only Name"},
		{name: "unknown path: base name", task: Task{ProjectPath: "/src/other"}, resolver: known, wantName: "other"},
		{name: "unknown path keeps existing name", task: Task{ProjectPath: "/src/other", ProjectName: "mine"}, resolver: known, wantName: "mine"},
		{name: "nil resolver: base name", task: Task{ProjectPath: "/src/repo/"}, wantName: "repo"},
		{name: "no path: untouched", task: Task{ProjectID: "x", ProjectName: "y"}, resolver: known, wantID: "x", wantName: "y"},
		{name: "no path, nothing known", task: Task{}, resolver: known},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			task := tt.task
			task.Output = wrap("summary: s")
			if c := Enrich(&task, DelegationOptions{}, tt.resolver); c == nil {
				t.Fatal("Enrich = nil")
			}
			if task.ProjectID != tt.wantID || task.ProjectName != tt.wantName {
				t.Errorf("project = (%q, %q), want (%q, %q)", task.ProjectID, task.ProjectName, tt.wantID, tt.wantName)
			}
		})
	}
}

func TestEnrichNoConclusionLeavesProjectAlone(t *testing.T) {
	t.Parallel()
	task := Task{ProjectPath: "/src/repo", Output: "no block"}
	if c := Enrich(&task, DelegationOptions{}, nil); c != nil {
		t.Fatalf("Enrich = %+v, want nil", c)
	}
	if task.ProjectName != "" {
		t.Errorf("ProjectName = %q, want untouched", task.ProjectName)
	}
}
