package checkpoint

import (
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Links from a session's checkpoint data to its hides and notes.
//
// A committed checkpoint's session slot (<shard>/<slot>/) holds HidesFile,
// the IDs of the hides the session made in the checkpoint's scope (since
// its previous checkpoint), and NotesDir, the notes tree of the session's
// agent at condensation time: the very tree object of the notes branch
// (notes.Store.TreeHash), so it stays reachable with the metadata. A shadow
// step's metadata dir (.entire/metadata/<session>/) holds NotesDir as of the
// step. Either is absent when there was nothing to record (no hides in
// scope; the agent had no notes, or the data predates them).
//
// To bring notes back (rewind, resume): NotesTree of the slot's or the
// step's tree, then strategy.RestoreNotes with the session's agent name.
const (
	// HidesFile is the JSON array of hide IDs in a session slot.
	HidesFile = "hides.json"
	// NotesDir is the notes subtree in a session slot or step metadata dir.
	NotesDir = "notes"
)

// NotesTree returns the hash of the NotesDir subtree of tree (a session
// slot's tree, Session.TreeHash, or a step's metadata dir tree);
// ok is false when tree has none.
func NotesTree(repo *gitrepo.Repo, tree plumbing.Hash) (plumbing.Hash, bool) {
	t, err := repo.Git.TreeObject(tree)
	if err != nil {
		return plumbing.ZeroHash, false
	}
	e, err := t.FindEntry(NotesDir)
	if err != nil || e.Mode != filemode.Dir {
		return plumbing.ZeroHash, false
	}
	return e.Hash, true
}
