package rewind

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// An undo point of an older entire (a commit under refs/entire/undo/,
// pushable) is moved into the store on first use: the ref is gone, and
// undoing to it still restores its files, index and transcript.
func TestLegacyUndoRefsMigrated(t *testing.T) {
	t.Parallel()
	fx := newLegacyFixture(t)
	repo := fx.repo
	// The old layout: HEAD's tree plus the saved paths, the index as a
	// commit, the transcripts as a tree.
	undoTree, err := repo.BuildTree(fx.headTree, []gitrepo.Change{
		{Path: "a.txt", Mode: filemode.Regular, Hash: mustBlob(t, repo, "legacy a\n")},
		{Path: "README.md", Delete: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	staged, err := repo.BuildTree(fx.headTree, []gitrepo.Change{{Path: "staged.txt", Mode: filemode.Regular, Hash: mustBlob(t, repo, "staged\n")}})
	if err != nil {
		t.Fatal(err)
	}
	index := fx.commit(staged, "index before rewind\n", fx.head)
	idx, _ := json.Marshal([]map[string]any{{"session_id": "s1", "path": fx.transcript}})
	tt, err := repo.WriteTree([]object.TreeEntry{
		{Name: "0", Mode: filemode.Regular, Hash: mustBlob(t, repo, "raw transcript\n")},
		{Name: "transcripts.json", Mode: filemode.Regular, Hash: mustBlob(t, repo, string(idx))},
	})
	if err != nil {
		t.Fatal(err)
	}
	transcripts := fx.commit(tt, "transcripts before rewind\n")
	undo := fx.commit(undoTree, "entire: undo point before rewind to abc1234\n", fx.head, index, transcripts)
	const name = "20250101T000000.000000000Z"
	gittest.Git(t, fx.dir, "update-ref", LegacyUndoRefPrefix+name, undo.String())

	rw := fx.rewinder()
	names, err := rw.UndoPoints(context.Background())
	if err != nil || len(names) != 1 || names[0] != name {
		t.Fatalf("undo points %v %v", names, err)
	}
	if refs := gittest.Git(t, fx.dir, "for-each-ref", "refs/entire/"); refs != "" {
		t.Errorf("legacy refs left:\n%s", refs)
	}
	if _, err := rw.Undo(context.Background(), LegacyUndoRefPrefix+name); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(fx.dir, "a.txt")); string(b) != "legacy a\n" {
		t.Errorf("a.txt = %q", b)
	}
	if _, err := os.Stat(filepath.Join(fx.dir, "README.md")); !os.IsNotExist(err) {
		t.Errorf("README.md not deleted: %v", err)
	}
	if b, _ := os.ReadFile(fx.transcript); string(b) != "raw transcript\n" {
		t.Errorf("transcript = %q", b)
	}
	if st := gittest.Git(t, fx.dir, "diff", "--cached", "--name-status"); st != "A\tstaged.txt" {
		t.Errorf("index after undo: %q", st)
	}
}

// A legacy undo commit names its transcripts by absolute path, and refs
// under refs/entire/ may come with a fetch: an undo to it writes or
// deletes a transcript only where this machine keeps that session.
func TestLegacyUndoTranscriptsStayInSessionFiles(t *testing.T) {
	t.Parallel()
	fx := newLegacyFixture(t)
	repo := fx.repo
	outside := t.TempDir()
	overwritten, deleted := filepath.Join(outside, "profile"), filepath.Join(outside, "keep")
	for _, p := range []string{overwritten, deleted} {
		if err := os.WriteFile(p, []byte("mine\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	idx, _ := json.Marshal([]map[string]any{
		{"session_id": "s1", "path": overwritten},
		{"session_id": "other", "path": deleted, "absent": true},
		{"session_id": "../s1", "path": fx.transcript},
	})
	tt, err := repo.WriteTree([]object.TreeEntry{
		{Name: "0", Mode: filemode.Regular, Hash: mustBlob(t, repo, "planted\n")},
		{Name: "2", Mode: filemode.Regular, Hash: mustBlob(t, repo, "planted\n")},
		{Name: "transcripts.json", Mode: filemode.Regular, Hash: mustBlob(t, repo, string(idx))},
	})
	if err != nil {
		t.Fatal(err)
	}
	undo := fx.commit(fx.headTree, "entire: undo point before rewind to abc1234\n", fx.head, fx.head, fx.commit(tt, "transcripts before rewind\n"))
	const name = "20250101T000000.000000000Z"
	gittest.Git(t, fx.dir, "update-ref", LegacyUndoRefPrefix+name, undo.String())
	before, _ := os.ReadFile(fx.transcript)

	if _, err := fx.rewinder().Undo(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{overwritten, deleted} {
		if b, err := os.ReadFile(p); err != nil || string(b) != "mine\n" {
			t.Errorf("%s outside the session files = %q, %v", p, b, err)
		}
	}
	if b, _ := os.ReadFile(fx.transcript); string(b) != string(before) {
		t.Errorf("transcript written from an invalid session ID: %q", b)
	}
}

// legacyFixture is a fixture after one step, for building an older
// entire's undo commits on its HEAD.
type legacyFixture struct {
	*fixture
	head, headTree plumbing.Hash // HEAD's commit and its tree
	sig            object.Signature
}

func newLegacyFixture(t *testing.T) *legacyFixture {
	t.Helper()
	fx := newFixture(t)
	fx.step("one", map[string]string{"a.txt": "1"}, []string{`{"uuid":"u1"}`}, "", "")
	head, err := fx.repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	hc, err := fx.repo.Git.CommitObject(head)
	if err != nil {
		t.Fatal(err)
	}
	return &legacyFixture{fixture: fx, head: head, headTree: hc.TreeHash, sig: fx.repo.Author(fx.clock)}
}

// commit writes a commit of tree with msg and parents at the fixture's
// clock.
func (fx *legacyFixture) commit(tree plumbing.Hash, msg string, parents ...plumbing.Hash) plumbing.Hash {
	fx.t.Helper()
	h, err := fx.repo.WriteCommit(&object.Commit{Author: fx.sig, Committer: fx.sig, TreeHash: tree, ParentHashes: parents, Message: msg})
	if err != nil {
		fx.t.Fatal(err)
	}
	return h
}
