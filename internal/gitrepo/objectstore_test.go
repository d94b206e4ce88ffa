package gitrepo

import (
	"errors"
	"fmt"
	"maps"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

// Packed objects are read through git cat-file, loose ones from their
// files, and both the same way go-git would read them; the objects git
// knows without storing (the empty tree) count as missing until stored.
func TestObjectStoreReadsPackedAndLoose(t *testing.T) {
	t.Parallel()
	dir := gittest.Init(t)
	gittest.WriteFile(t, dir, "a/b/c.txt", "packed\n")
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-q", "-m", "one")
	gittest.Git(t, dir, "gc", "-q")
	r := openTest(t, dir)
	head, err := r.Head()
	if err != nil {
		t.Fatal(err)
	}
	tree, err := r.CommitTree(head)
	if err != nil {
		t.Fatal(err)
	}
	f, err := tree.File("a/b/c.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := f.Contents(); got != "packed\n" {
		t.Fatalf("packed blob %q", got)
	}
	if !r.HasObject(f.Hash) || r.HasObject(plumbing.NewHash("0123456789012345678901234567890123456789")) {
		t.Error("HasObject of a packed and a missing object")
	}
	if n, err := r.ObjectSize(f.Hash); err != nil || n != 7 {
		t.Errorf("ObjectSize %d %v", n, err)
	}
	if r.HasObject(EmptyTree) {
		t.Error("the empty tree counts as stored before it is")
	}
	if h, err := r.WriteTree(nil); err != nil || h != EmptyTree || !r.HasObject(EmptyTree) {
		t.Errorf("write the empty tree: %s %v", h, err)
	}
	loose, err := r.WriteBlobString("loose\n")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := r.ReadBlob(loose); err != nil || string(b) != "loose\n" {
		t.Errorf("loose blob %q %v", b, err)
	}
	if r.storage.cat == nil {
		t.Error("no cat-file process read the packed objects")
	}

	// Without cat-file, go-git reads them.
	r2 := openTest(t, dir)
	r2.storage.catErr = errors.New("no git")
	tree2, err := r2.CommitTree(head)
	if err != nil || tree2.Hash != tree.Hash {
		t.Fatalf("fallback: %v", err)
	}
	if !r2.HasObject(f.Hash) {
		t.Error("fallback HasObject")
	}
	gittest.Fsck(t, dir)
}

// ReadBlobs reads packed blobs (in groups larger than one) and loose ones,
// leaves out what is missing or not a blob, stops when told, and reads the
// same without cat-file.
func TestReadBlobs(t *testing.T) {
	t.Parallel()
	dir := gittest.Init(t)
	want := map[plumbing.Hash]string{}
	for i := range catFileGroup + 20 {
		gittest.WriteFile(t, dir, fmt.Sprintf("f%03d.txt", i), fmt.Sprintf("packed %d\n", i))
	}
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-q", "-m", "one")
	gittest.Git(t, dir, "gc", "-q")
	r := openTest(t, dir)
	head, err := r.Head()
	if err != nil {
		t.Fatal(err)
	}
	tree, err := r.CommitTree(head)
	if err != nil {
		t.Fatal(err)
	}
	var hs []plumbing.Hash
	for _, e := range tree.Entries {
		hs = append(hs, e.Hash)
		f, _ := tree.File(e.Name)
		want[e.Hash], _ = f.Contents()
	}
	loose, err := r.WriteBlobString("loose\n")
	if err != nil {
		t.Fatal(err)
	}
	want[loose] = "loose\n"
	hs = append(hs, loose, plumbing.NewHash("0123456789012345678901234567890123456789"), head, tree.Hash)

	for _, r := range []*Repo{r, func() *Repo { r := openTest(t, dir); r.storage.catErr = errors.New("no git"); return r }()} {
		got := map[plumbing.Hash]string{}
		if err := r.ReadBlobs(hs, func(h plumbing.Hash, data []byte) bool {
			got[h] = string(data)
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, want) {
			t.Errorf("read %d blobs, want %d", len(got), len(want))
		}
		n := 0
		if err := r.ReadBlobs(hs, func(plumbing.Hash, []byte) bool { n++; return n < 3 }); err != nil || n != 3 {
			t.Errorf("stopped after %d (%v), want 3", n, err)
		}
	}
	// The process is still in step after a stop.
	if b, err := r.ReadBlob(hs[len(hs)-6]); err != nil || string(b) != want[hs[len(hs)-6]] {
		t.Errorf("read after a stop: %q %v", b, err)
	}
}
