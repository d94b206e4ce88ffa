package checkpoint

import (
	"errors"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ReadJSON decodes a metadata file, and refuses one over its bound
// without reading it: the metadata branch comes from other clones.
func TestReadJSONBound(t *testing.T) {
	t.Parallel()
	repo := openRepo(t, gittest.InitWithCommit(t))
	blob, err := repo.WriteBlob([]byte(`{"session_id":"s1"}`))
	if err != nil {
		t.Fatal(err)
	}
	th, err := repo.WriteTree([]object.TreeEntry{{Name: MetadataFile, Mode: filemode.Regular, Hash: blob}})
	if err != nil {
		t.Fatal(err)
	}
	tree, err := repo.Git.TreeObject(th)
	if err != nil {
		t.Fatal(err)
	}
	var m SessionMetadata
	if err := ReadJSON(repo, tree, MetadataFile, &m); err != nil || m.SessionID != "s1" {
		t.Fatalf("ReadJSON = %v, %+v", err, m)
	}
	if err := readJSONAtMost(repo, tree, MetadataFile, &m, 10); !errors.Is(err, ErrCorrupt) {
		t.Errorf("over the bound: %v", err)
	}
	if err := ReadJSON(repo, tree, "missing.json", &m); !errors.Is(err, object.ErrFileNotFound) {
		t.Errorf("missing: %v", err)
	}
}
