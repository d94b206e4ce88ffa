package checkpoint

import (
	"errors"
	"strings"
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

// ContentHashIn reads a content hash, trimmed, and refuses a blob larger
// than any content hash without reading it.
func TestContentHashInBound(t *testing.T) {
	t.Parallel()
	repo := openRepo(t, gittest.InitWithCommit(t))
	slot := func(content string) *object.Tree {
		blob, err := repo.WriteBlob([]byte(content))
		if err != nil {
			t.Fatal(err)
		}
		th, err := repo.WriteTree([]object.TreeEntry{{Name: ContentHashFile, Mode: filemode.Regular, Hash: blob}})
		if err != nil {
			t.Fatal(err)
		}
		tree, err := repo.Git.TreeObject(th)
		if err != nil {
			t.Fatal(err)
		}
		return tree
	}
	hash := "sha256:" + strings.Repeat("ab", 32)
	if got := ContentHashIn(repo, slot(hash+"\n")); got != hash {
		t.Errorf("ContentHashIn = %q, want %q", got, hash)
	}
	if got := ContentHashIn(repo, slot(hash+strings.Repeat(" ", maxContentHash))); got != "" {
		t.Errorf("an oversized content_hash.txt gives %q", got)
	}
}
