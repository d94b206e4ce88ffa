package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

// MeasureEdits reports what changed since a checkpoint, by comparing the
// dirty files (hashed, never stored) and the paths where the checkpoint
// and HEAD differ with the checkpoint's tree.
func TestMeasureEdits(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	for p, c := range map[string]string{"a.txt": "a0\n", "b.txt": "b0\n", "c.txt": "c0\n", "same.txt": "same\n"} {
		gittest.WriteFile(t, dir, p, c)
	}
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-q", "-m", "files")
	repo := openRepo(t, dir)
	head, _ := repo.Head()
	hc, _ := repo.Git.CommitObject(head)

	// The checkpoint: a.txt changed, n.txt new.
	gittest.WriteFile(t, dir, "a.txt", "a1\n")
	gittest.WriteFile(t, dir, "n.txt", "n\n")
	changes, err := repo.WorktreeChanges([]string{"a.txt", "n.txt"})
	if err != nil {
		t.Fatal(err)
	}
	step, err := WriteStep(context.Background(), repo, Step{
		Branch: ShadowBranchName(head.String(), ""), BaseTree: hc.TreeHash, Changes: changes, Snapshot: true,
		MetadataDir: MetadataDirPrefix + "s1", MetadataFiles: map[string][]byte{PromptFile: []byte("p")},
		Message: StepMessage("one", MetadataDirPrefix+"s1", "s1", StrategyManualCommit),
	}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := repo.Git.CommitObject(step)

	// Since then, by hand: a.txt back to HEAD's content (no longer dirty),
	// b.txt edited, c.txt deleted, u.txt new; n.txt as in the checkpoint.
	gittest.WriteFile(t, dir, "a.txt", "a0\n")
	gittest.WriteFile(t, dir, "b.txt", "b by hand\n")
	gittest.WriteFile(t, dir, "u.txt", "untracked by hand\n")
	os.Remove(filepath.Join(dir, "c.txt"))
	status, err := repo.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var dirty []string
	for _, e := range status {
		if !strings.HasPrefix(e.Path, ".entire/") {
			dirty = append(dirty, e.Path)
		}
	}
	skip := func(p string) bool { return p == ".entire" }
	edits, disk, err := MeasureEdits(repo, sc.TreeHash, hc.TreeHash, dirty, nil, skip, nil)
	if err != nil {
		t.Fatal(err)
	}
	blob := func(s string) plumbing.Hash { return plumbing.ComputeHash(plumbing.BlobObject, []byte(s)) }
	want := []Edit{
		{Path: "a.txt", Was: Entry{Mode: 0o100644, Hash: blob("a1\n")}, Now: Entry{Mode: 0o100644, Hash: blob("a0\n")}},
		{Path: "b.txt", Was: Entry{Mode: 0o100644, Hash: blob("b0\n")}, Now: Entry{Mode: 0o100644, Hash: blob("b by hand\n")}},
		{Path: "c.txt", Was: Entry{Mode: 0o100644, Hash: blob("c0\n")}},
		{Path: "u.txt", Now: Entry{Mode: 0o100644, Hash: blob("untracked by hand\n")}},
	}
	if len(edits) != len(want) {
		t.Fatalf("edits %+v, want %+v", edits, want)
	}
	for i := range want {
		if edits[i] != want[i] {
			t.Errorf("edit %d: %+v, want %+v", i, edits[i], want[i])
		}
	}
	if len(disk) != len(dirty) || disk["n.txt"].Hash != blob("n\n") || disk["c.txt"].Exists() {
		t.Errorf("disk states %+v of %v", disk, dirty)
	}
	if repo.HasObject(blob("untracked by hand\n")) || repo.HasObject(blob("b by hand\n")) {
		t.Error("measuring stored the user's content in git")
	}

	// Against HEAD (no checkpoint yet), every dirty path is an edit.
	edits, _, err = MeasureEdits(repo, hc.TreeHash, hc.TreeHash, dirty, nil, skip, nil)
	if err != nil || len(edits) != len(dirty) {
		t.Errorf("against HEAD: %+v %v (dirty %v)", edits, err, dirty)
	}
}
