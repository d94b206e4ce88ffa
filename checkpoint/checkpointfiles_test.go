package checkpoint

import (
	"context"
	"errors"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func TestWriteSessionCheckpointFiles(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	store := NewStore(openRepo(t, dir), fixedNow)
	ctx := context.Background()
	id := ID("0a1b2c3d4e5f")
	w := SessionWrite{
		Metadata:        SessionMetadata{SessionID: "s1", Strategy: StrategyAutoCommit, IsTask: true, ToolUseID: "toolu_1"},
		CheckpointFiles: map[string][]byte{"tasks/toolu_1/checkpoint.json": []byte("{}\n")},
	}
	if _, err := store.WriteSession(ctx, id, w, CommitInfo{}); err != nil {
		t.Fatal(err)
	}
	files := gittest.Git(t, dir, "ls-tree", "-r", "--name-only", MetadataBranch)
	if files != "0a/1b2c3d4e5f/0/metadata.json\n0a/1b2c3d4e5f/metadata.json\n0a/1b2c3d4e5f/tasks/toolu_1/checkpoint.json" {
		t.Errorf("tree:\n%s", files)
	}
	cp, err := store.Read(id)
	if err != nil || len(cp.Sessions) != 1 {
		t.Fatalf("read back: %v", err)
	}
	for _, bad := range []string{"0/x.json", MetadataFile, "../x"} {
		w.CheckpointFiles = map[string][]byte{bad: []byte("x")}
		_, err := store.WriteSession(ctx, id, w, CommitInfo{})
		if !errors.Is(err, gitrepo.ErrBadPath) {
			t.Errorf("checkpoint file %q: %v", bad, err)
		}
	}
	if files2 := gittest.Git(t, dir, "ls-tree", "-r", "--name-only", MetadataBranch); files2 != files {
		t.Errorf("a refused write changed the tree:\n%s", files2)
	}
}

// A slot file larger than MaxSlotFile (a crafted push) is refused as
// corrupt, not read whole; a small one reads back.
func TestSessionFileBounded(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	store := NewStore(openRepo(t, dir), fixedNow)
	id := ID("1a2b3c4d5e6f")
	w := SessionWrite{
		Metadata: SessionMetadata{SessionID: "s1", Strategy: StrategyManualCommit},
		Files:    map[string][]byte{"references.json": make([]byte, MaxSlotFile+1), "small.json": []byte("[]")},
	}
	if _, err := store.WriteSession(context.Background(), id, w, CommitInfo{}); err != nil {
		t.Fatal(err)
	}
	cp, err := store.Read(id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Sessions[0].File("references.json"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("an oversized slot file: %v", err)
	}
	if b, err := cp.Sessions[0].File("small.json"); err != nil || string(b) != "[]" {
		t.Errorf("a small slot file: %q, %v", b, err)
	}
}
