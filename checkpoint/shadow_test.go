package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func TestShadowBranchName(t *testing.T) {
	t.Parallel()
	if got := ShadowBranchName("abc1234def5678", ""); got != "entire/abc1234-e3b0c4" {
		t.Errorf("main worktree: %s", got)
	}
	name := ShadowBranchName("abc1234def5678", "feature-wt")
	if !strings.HasPrefix(name, "entire/abc1234-") || name == "entire/abc1234-e3b0c4" {
		t.Errorf("linked worktree: %s", name)
	}
	for _, tt := range []struct {
		name     string
		base, wt string
		ok       bool
	}{
		{"entire/abc1234-e3b0c4", "abc1234", "e3b0c4", true},
		{"refs/heads/entire/abc1234-e3b0c4", "abc1234", "e3b0c4", true},
		{"entire/abc1234", "abc1234", "", true},
		{"entire/checkpoints/v1", "", "", false},
		{"entire/hides/v1", "", "", false},
		{"entire/abc12", "", "", false},
		{"feature/abc1234", "", "", false},
	} {
		base, wt, ok := ParseShadowBranch(tt.name)
		if base != tt.base || wt != tt.wt || ok != tt.ok {
			t.Errorf("ParseShadowBranch(%q) = %q %q %v", tt.name, base, wt, ok)
		}
	}
}

func TestWriteStep(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	repo := openRepo(t, dir)
	head, _ := repo.Head()
	hc, _ := repo.Git.CommitObject(head)
	branch := ShadowBranchName(head.String(), "")
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	gittest.WriteFile(t, dir, "src/app.go", "package app\n")
	changes, err := repo.WorktreeChanges([]string{"src/app.go", "README.md"})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := AppendJSONL(repo, nil, []byte("{\"type\":\"user\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	step := Step{
		Branch: branch, BaseTree: hc.TreeHash, Changes: changes,
		MetadataDir:   MetadataDirPrefix + "sess-1",
		MetadataFiles: map[string][]byte{PromptFile: []byte("add app")},
		Transcript:    ts,
		Message:       StepMessage("Add app", MetadataDirPrefix+"sess-1", "sess-1", StrategyManualCommit),
	}
	first, err := WriteStep(ctx, repo, step, now)
	if err != nil {
		t.Fatal(err)
	}
	if parents := gittest.Git(t, dir, "rev-list", "--parents", "-n1", first.String()); strings.Contains(parents, " ") {
		t.Errorf("first shadow commit has a parent: %s", parents)
	}
	files := gittest.Git(t, dir, "ls-tree", "-r", "--name-only", branch)
	for _, want := range []string{"README.md", "src/app.go", ".entire/metadata/sess-1/full.jsonl", ".entire/metadata/sess-1/prompt.txt", ".entire/metadata/sess-1/content_hash.txt"} {
		if !strings.Contains(files, want) {
			t.Errorf("shadow tree lacks %s:\n%s", want, files)
		}
	}
	// The same step again changes nothing.
	if _, err := WriteStep(ctx, repo, step, now); !errors.Is(err, ErrStepUnchanged) {
		t.Errorf("repeated step: %v", err)
	}
	// A deletion and a second session.
	if err := os.Remove(filepath.Join(dir, "src/app.go")); err != nil {
		t.Fatal(err)
	}
	changes, _ = repo.WorktreeChanges([]string{"src/app.go"})
	second, err := WriteStep(ctx, repo, Step{Branch: branch, Changes: changes, Message: StepMessage("Remove app", MetadataDirPrefix+"sess-2", "sess-2", StrategyManualCommit)}, now)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := repo.Git.CommitObject(second)
	info := ParseStep(c)
	if info.SessionID != "sess-2" || info.Subject != "Remove app" || info.MetadataDir != ".entire/metadata/sess-2" || info.IsTask {
		t.Errorf("ParseStep = %+v", info)
	}
	if len(c.ParentHashes) != 1 || c.ParentHashes[0] != first {
		t.Error("second step is not on top of the first")
	}
	if files := gittest.Git(t, dir, "ls-tree", "-r", "--name-only", branch); strings.Contains(files, "src/app.go") {
		t.Error("deleted file still in shadow tree")
	}
	task := TaskStepMessage("Completed 'general' agent (toolu_01)", ".entire/metadata/s/tasks/toolu_01", "s", StrategyManualCommit)
	if tr := ParseTrailers(task); len(tr) != 3 || tr[0].Key != TrailerMetadataTask {
		t.Errorf("task message trailers %v", tr)
	}
	carry := StepMessage("carry forward: uncommitted session files", "", "s", StrategyManualCommit)
	if v, ok := ParseTrailers(carry).Get(TrailerMetadata); !ok || v != "" {
		t.Errorf("carry-forward metadata trailer %q %v", v, ok)
	}
	gittest.Fsck(t, dir)
}

func TestTaskToolUseID(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		".entire/metadata/sess-1/tasks/toolu_main_630f5bf8_4_0":                                              "toolu_main_630f5bf8_4_0",
		".entire/metadata/sess-1/tasks/toolu_main_630f5bf8_4_0/checkpoints/002-toolu_main_630f5bf8_4_0.json": "toolu_main_630f5bf8_4_0",
		"a3/b2c4d5e6f7/tasks/toolu_01":                                                                       "toolu_01",
		"a3/b2c4d5e6f7/tasks/toolu_01/checkpoints/001-toolu_01.json":                                         "toolu_01",
		".entire/metadata/tasks/tasks/toolu_02":                                                              "toolu_02", // a session named "tasks"
		".entire/metadata/tasks/tasks/toolu_02/checkpoints/001-toolu_02.json":                                "toolu_02",
		".entire/metadata/sess-1":                                                                            "",
		"":                                                                                                   "",
	}
	for path, want := range tests {
		if got := TaskToolUseID(path); got != want {
			t.Errorf("TaskToolUseID(%q) = %q, want %q", path, got, want)
		}
	}
	c := &object.Commit{Message: TaskStepMessage("Run bash (toolu_main_6)", ".entire/metadata/s/tasks/toolu_main_630f5bf8_4_0/checkpoints/001-toolu_main_630f5bf8_4_0.json", "s", StrategyManualCommit)}
	if info := ParseStep(c); !info.IsTask || info.ToolUseID != "toolu_main_630f5bf8_4_0" {
		t.Errorf("ParseStep of an incremental task step = %+v", info)
	}
}
