package subagent

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/conclusion"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func TestReadSlot(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	late, _ := Encode(&conclusion.Task{ID: "toolu_b", Engine: "claude-code", StartedAt: t0.Add(time.Minute), Status: conclusion.TaskCompleted,
		Conclusion: &conclusion.Conclusion{Status: conclusion.StatusPartial, Summary: "later"}})
	early, _ := Encode(&conclusion.Task{ID: "toolu_a", Engine: "claude-code", StartedAt: t0, Status: conclusion.TaskCompleted,
		Conclusion: &conclusion.Conclusion{Status: conclusion.StatusSuccess, Summary: "first"}})
	store := checkpoint.NewStore(repo, nil)
	id := checkpoint.ID("a3b2c4d5e6f7")
	ctx := context.Background()
	if _, err := store.WriteSession(ctx, id, checkpoint.SessionWrite{
		Metadata: checkpoint.SessionMetadata{SessionID: "s1"},
		Files: map[string][]byte{
			SlotPath("toolu_b"): late, SlotPath("toolu_a"): early,
			"tasks/bare/conclusion.json": []byte(`{"status":"failed","summary":"bare"}`),
		},
	}, checkpoint.CommitInfo{}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.WriteSession(ctx, id, checkpoint.SessionWrite{Metadata: checkpoint.SessionMetadata{SessionID: "s2"}}, checkpoint.CommitInfo{}); err != nil {
		t.Fatal(err)
	}
	cp, err := store.Read(id)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := ReadSlot(repo, cp.Sessions[0])
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, task := range tasks {
		got = append(got, task.ID+":"+task.Conclusion.Summary)
	}
	if len(got) != 3 || got[0] != "bare:bare" || got[1] != "toolu_a:first" || got[2] != "toolu_b:later" {
		t.Errorf("ReadSlot = %v", got)
	}
	if none, err := ReadSlot(repo, cp.Sessions[1]); none != nil || err != nil {
		t.Errorf("slot without tasks = %v, %v", none, err)
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	if err := os.WriteFile(filepath.Join(base, "here.go"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		task *conclusion.Task
		want string
	}{
		{"nil", nil, ""},
		{"no conclusion", &conclusion.Task{ID: "a1", Engine: "claude-code", Status: conclusion.TaskRunning},
			"Task a1 (claude-code, running): no conclusion captured"},
		{"full", &conclusion.Task{ID: "toolu_1", Engine: "claude-code", Status: conclusion.TaskCompleted, Conclusion: &conclusion.Conclusion{
			Status: conclusion.StatusSuccess, Summary: "Did it.\nTwo lines.", FollowUp: "tests", Confidence: 0.8,
			Artifacts: []string{"here.go", "gone.go", "https://x/y", " "}, MemoryRefs: []string{"proj-layout"},
			Warnings: []string{"missing summary", "dropped 1 blank artifacts entry"}}},
			"Task toolu_1 (claude-code, completed): success, confidence 0.80\n" +
				"  summary: Did it.\n    Two lines.\n" +
				"  follow_up: tests\n" +
				"  artifacts: here.go (present), gone.go (missing), https://x/y\n" +
				"  memory_refs: proj-layout\n" +
				"  warnings: missing summary; dropped 1 blank artifacts entry"},
		{"synthesized", &conclusion.Task{ID: "t", Conclusion: &conclusion.Conclusion{Status: conclusion.StatusFailed, Summary: "boom", Synthesized: true}},
			"Task t (unknown agent, unknown): failed, synthesized\n  summary: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Format(tt.task, NewPresenceResolver(base), nil); got != tt.want {
				t.Errorf("Format =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
