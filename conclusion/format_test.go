package conclusion

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.golden files from the current output")

// checkGolden compares got with testdata/<name>.golden byte for byte, or
// rewrites the file when -update is given.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("update golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run go test -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

func fullTask() *Task {
	return &Task{
		ID:              "toolu_01ABCdef",
		Engine:          "claude-code",
		ParentSessionID: "sess-1",
		ProjectPath:     "/home/dev/shop",
		StartedAt:       time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC),
		EndedAt:         time.Date(2026, 11, 22, 3, 4, 0, 0, time.UTC),
		Status:          TaskCompleted,
		Conclusion: &Conclusion{
			Status:     StatusPartial,
			Summary:    "  Added the login form and its handler.\nLogout is not wired yet.  ",
			Artifacts:  []string{" web/login.go ", "", "web/login_test.go", "   "},
			MemoryRefs: []string{"auth-flow", " "},
			FollowUp:   " wire the logout button ",
			Confidence: 0.875,
			Warnings:   []string{"dropped 1 blank artifacts entry", "missing summary"},
		},
	}
}

func TestFormatForParentGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		task *Task
	}{
		{name: "no_task", task: nil},
		{name: "no_conclusion", task: &Task{ID: "toolu_9", Engine: "gemini-cli", WorkDir: "/tmp/work/api", Status: TaskFailed}},
		{name: "full", task: fullTask()},
		{name: "minimal", task: &Task{ID: "t1", Engine: "claude-code", Conclusion: &Conclusion{Status: StatusSuccess}}},
		{name: "zero_confidence", task: &Task{ID: "t2", Engine: "claude-code", ProjectName: " shop ",
			Conclusion: &Conclusion{Status: StatusSuccess, Summary: "Done.", Confidence: 0}}},
		{name: "synthesized_failure", task: &Task{ID: "t3", Engine: "claude-code", ProjectPath: "/src/api", Status: TaskFailed,
			Conclusion: &Conclusion{Status: StatusFailed, Summary: "boom (exit code 3)", Synthesized: true}}},
		{name: "blank_lists_omitted", task: &Task{ID: "t4", Engine: "claude-code",
			Conclusion: &Conclusion{Status: StatusBlocked, Summary: "Waiting on credentials.", Artifacts: []string{" "}, MemoryRefs: []string{""}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := FormatForParent(tt.task, nil)
			checkGolden(t, tt.name, got)
			if withEmpty := FormatForParent(tt.task, &ResolveOptions{}); withEmpty != got {
				t.Errorf("empty ResolveOptions changed the output:\n%s", withEmpty)
			}
		})
	}
}

func TestFormatForParentResolvedGolden(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeSized(t, filepath.Join(root, "web", "login.go"), 12)
	writeSized(t, filepath.Join(root, "docs", "design.md"), 3584)
	writeSized(t, filepath.Join(root, "assets", "logo.bin"), 5*1024*1024/2)

	task := fullTask()
	task.Conclusion.Artifacts = []string{
		" web/login.go ", "docs/design.md", "assets/logo.bin", "web/gone.go",
		"https://example.com/pull/7", " ",
	}
	noteKey := func(ref string) string {
		if ref == "auth-flow" {
			return ref + " (note)"
		}
		return ref
	}
	res := &ResolveOptions{Artifacts: NewFilesystemArtifactResolver(root), Memory: noteKey}
	checkGolden(t, "resolved", FormatForParent(task, res))

	artifactsOnly := &ResolveOptions{Artifacts: NewFilesystemArtifactResolver(root)}
	checkGolden(t, "resolved_artifacts_only", FormatForParent(task, artifactsOnly))
}

func writeSized(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestFormatForParentLayout pins the layout inline as well, so that a
// careless -update cannot bless a changed format.
func TestFormatForParentLayout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		task *Task
		res  *ResolveOptions
		want string
	}{
		{name: "nil task", want: "[delegated-result] (no task)"},
		{
			name: "no conclusion",
			task: &Task{ID: "a", Engine: "claude-code", Status: TaskRunning},
			want: "[delegated-result task=a engine=claude-code project=unknown status=running] (no conclusion captured)",
		},
		{
			name: "every line",
			task: fullTask(),
			want: "[delegated-result task=toolu_01ABCdef engine=claude-code project=shop status=partial confidence=0.88]\n" +
				"summary: Added the login form and its handler.\nLogout is not wired yet.\n" +
				"follow_up: wire the logout button\n" +
				"artifacts: web/login.go, web/login_test.go\n" +
				"memory_refs: auth-flow\n" +
				"warnings: dropped 1 blank artifacts entry, missing summary",
		},
		{
			name: "resolved lists",
			task: &Task{ID: "b", Engine: "e", Conclusion: &Conclusion{Status: StatusSuccess,
				Artifacts: []string{"x", " y "}, MemoryRefs: []string{"k"}}},
			res: &ResolveOptions{
				Artifacts: func(r string) string { return "<" + r + ">" },
				Memory:    func(r string) string { return "[" + r + "]" },
			},
			want: "[delegated-result task=b engine=e project=unknown status=success]\n" +
				"artifacts:\n  - <x>\n  - <y>\n" +
				"memory_refs:\n  - [k]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := FormatForParent(tt.task, tt.res); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestProjectLabel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		task Task
		want string
	}{
		{"name wins, trimmed", Task{ProjectName: "  shop ", ProjectPath: "/a/b", WorkDir: "/c/d"}, "shop"},
		{"blank name falls to path", Task{ProjectName: "  ", ProjectPath: "/a/b", WorkDir: "/c/d"}, "b"},
		{"path with trailing slash", Task{ProjectPath: "/a/b/"}, "b"},
		{"work dir", Task{WorkDir: "/c/d"}, "d"},
		{"nothing", Task{}, "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := projectLabel(&tt.task); got != tt.want {
				t.Errorf("projectLabel = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFormatForParentDoesNotModifyTask(t *testing.T) {
	t.Parallel()
	task := fullTask()
	before := *task.Conclusion
	before.Artifacts = append([]string(nil), task.Conclusion.Artifacts...)
	_ = FormatForParent(task, &ResolveOptions{Artifacts: strings.ToUpper})
	if strings.Join(task.Conclusion.Artifacts, "|") != strings.Join(before.Artifacts, "|") ||
		task.Conclusion.Summary != before.Summary || task.ProjectName != "" {
		t.Fatal("FormatForParent modified the task")
	}
}
