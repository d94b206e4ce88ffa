package gitrepo

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

func TestReadBlobLooseAndPacked(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	r := openTest(t, dir)
	data := bytes.Repeat([]byte("line of a transcript\n"), 100000)
	h, err := r.WriteBlob(data)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.ReadBlob(h); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("loose ReadBlob: %v, %d bytes", err, len(got))
	}
	empty, _ := r.WriteBlob(nil)
	if got, err := r.ReadBlob(empty); err != nil || len(got) != 0 {
		t.Errorf("empty blob: %v %q", err, got)
	}
	// A corrupt loose file is not trusted: the read fails.
	p := filepath.Join(r.CommonDir, "objects", h.String()[:2], h.String()[2:])
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadBlob(h); err == nil {
		t.Error("corrupt loose object read without error")
	}
	// Packed objects still read through go-git.
	dir = gittest.InitWithCommit(t)
	gittest.Git(t, dir, "gc", "-q")
	r = openTest(t, dir)
	readme := gittest.Git(t, dir, "rev-parse", "HEAD:README.md")
	if got, err := r.ReadBlob(plumbing.NewHash(readme)); err != nil || string(got) != "hello\n" {
		t.Errorf("packed ReadBlob: %v %q", err, got)
	}
}

func TestHashObjectMatchesGit(t *testing.T) {
	t.Parallel()
	for _, data := range [][]byte{nil, []byte("hello\n"), bytes.Repeat([]byte("x"), 70_000)} {
		for _, typ := range []plumbing.ObjectType{plumbing.BlobObject, plumbing.TreeObject, plumbing.CommitObject} {
			if got, want := HashObject(typ, data), plumbing.ComputeHash(typ, data); got != want {
				t.Errorf("HashObject(%s, %d bytes) = %s, want %s", typ, len(data), got, want)
			}
		}
	}
}
