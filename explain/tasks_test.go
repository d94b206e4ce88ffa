package explain

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/conclusion"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/notes"
	"github.com/entirecli/entire/renderrefs"
	"github.com/entirecli/entire/strategy/references"
	"github.com/entirecli/entire/strategy/subagent"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ns, _ := notes.NewStore(ctx, repo)
	if err := ns.Save(ctx, "proj-layout", "Layout: cmd/ and pkg/", notes.DefaultMaxBytes, notes.DefaultMaxCount); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs", "layout.md"), []byte("# Layout\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	task, _ := subagent.Encode(&conclusion.Task{ID: "toolu_1", Engine: "claude-code", Status: conclusion.TaskCompleted,
		Conclusion: &conclusion.Conclusion{Status: conclusion.StatusSuccess, Summary: "Documented.", Confidence: 0.9,
			Artifacts: []string{"docs/layout.md", "docs/gone.md"}, MemoryRefs: []string{"proj-layout", "other-id"}}})
	refs, _ := references.Encode([]renderrefs.Reference{
		{Type: "note", ID: "proj-layout", Preview: &renderrefs.Preview{Title: "stale"}},
		{Type: "checkpoint", ID: "ffffffffffff"},
	})
	store := checkpoint.NewStore(repo, nil)
	id := checkpoint.ID("a3b2c4d5e6f7")
	for _, w := range []checkpoint.SessionWrite{
		{Metadata: checkpoint.SessionMetadata{SessionID: "s1", Agent: "Claude Code"}, Files: map[string][]byte{subagent.SlotPath("toolu_1"): task, references.FileName: refs}},
		{Metadata: checkpoint.SessionMetadata{SessionID: "s2"}},
	} {
		if _, err := store.WriteSession(ctx, id, w, checkpoint.CommitInfo{}); err != nil {
			t.Fatal(err)
		}
	}
	cp, err := store.Read(id)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteTasks(ctx, &b, repo, cp.Sessions[0], TaskOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "Subagent tasks:\n" +
		"  Task toolu_1 (claude-code, completed): success, confidence 0.90\n" +
		"    summary: Documented.\n" +
		"    artifacts: docs/layout.md (present), docs/gone.md (missing)\n" +
		"    memory_refs: proj-layout (note: Layout: cmd/ and pkg/), other-id\n" +
		"\n" +
		"References:\n" +
		"  [note proj-layout] Layout: cmd/ and pkg/\n" +
		"  [checkpoint ffffffffffff] (gone: the checkpoint no longer exists)\n"
	if b.String() != want {
		t.Errorf("Write =\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteTasks(ctx, &b, repo, cp.Sessions[1], TaskOptions{}); err != nil || b.Len() != 0 {
		t.Errorf("empty slot wrote %q, %v", b.String(), err)
	}
}
