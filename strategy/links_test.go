package strategy

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/notes"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestNotesLinksRoundTrip: a notes tree grafted into a slot or a step's
// metadata dir is found again and restores the notes of its moment.
func TestNotesLinksRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, err := gitrepo.Open(gittest.InitWithCommit(t), gitrepo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := notes.NewStore(ctx, repo, notes.WithAgent("gemini"))
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Save(ctx, "turn2", "as in turn 2", 0, 0); err != nil {
		t.Fatal(err)
	}
	then, err := store.TreeHash(ctx)
	if err != nil || then.IsZero() {
		t.Fatalf("tree hash %v %v", then, err)
	}

	// A slot tree and a step commit holding that notes tree.
	blob, _ := repo.WriteBlob([]byte(`["hide_a","hide_b"]`))
	slot, err := repo.BuildTree(plumbing.ZeroHash, []gitrepo.Change{
		{Path: checkpoint.NotesDir, Mode: filemode.Dir, Hash: then},
		{Path: checkpoint.HidesFile, Mode: filemode.Regular, Hash: blob},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := checkpoint.NotesTree(repo, slot); !ok || got != then {
		t.Errorf("NotesTree = %v %v, want %v", got, ok, then)
	}
	if _, ok := checkpoint.NotesTree(repo, blob); ok {
		t.Errorf("NotesTree of a blob found a tree")
	}
	stepTree, _ := repo.BuildTree(plumbing.ZeroHash, []gitrepo.Change{{Path: metadataDir("s1") + "/" + checkpoint.NotesDir, Mode: filemode.Dir, Hash: then}})
	sig := repo.Author(time.Now())
	step, err := repo.WriteCommit(&object.Commit{Author: sig, Committer: sig, Message: "step\n", TreeHash: stepTree})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := StepNotesTree(repo, step, "s1"); !ok || got != then {
		t.Errorf("StepNotesTree = %v %v", got, ok)
	}
	if _, ok := StepNotesTree(repo, step, "other"); ok {
		t.Errorf("StepNotesTree of another session found a tree")
	}

	// Turn 4 changes the notes; restoring the tree brings turn 2 back.
	if err := store.Save(ctx, "turn2", "changed in turn 4", 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := store.Save(ctx, "turn4", "new in turn 4", 0, 0); err != nil {
		t.Fatal(err)
	}
	undo, _ := store.TreeHash(ctx)
	if err := RestoreNotes(ctx, repo, "gemini", then); err != nil {
		t.Fatal(err)
	}
	if n, err := store.Get(ctx, "turn2"); err != nil || n.Content != "as in turn 2" {
		t.Errorf("after restore: %+v %v", n, err)
	}
	if _, err := store.Get(ctx, "turn4"); !errors.Is(err, notes.ErrNotFound) {
		t.Errorf("turn4 note survived the restore: %v", err)
	}
	if err := RestoreNotes(ctx, repo, "gemini", undo); err != nil {
		t.Fatal(err)
	}
	if n, _ := store.Get(ctx, "turn2"); n.Content != "changed in turn 4" {
		t.Errorf("after undo: %q", n.Content)
	}
}
