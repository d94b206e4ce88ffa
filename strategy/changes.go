package strategy

import (
	"fmt"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// changeRecord returns the session's record of who changed which paths,
// creating it on first use. A state that versions without the record
// wrote has only files_touched to say what its earlier turns changed:
// those paths seed the record's turn changes.
func changeRecord(st *session.State) *session.ChangeRecord {
	if st.Changes == nil {
		st.Changes = &session.ChangeRecord{Turns: unionSorted(st.FilesTouched)}
	}
	return st.Changes
}

// recordUserEdits measures, at a turn start, what changed in the work tree
// since the session last recorded it (latestTree: its newest turn end,
// pending or written, else HEAD's tree): the edits between turns are the
// user's. It
// records them in the session, counts them in lines for the attribution
// (promptAttribution; pending until the turn's step) and returns the state
// on disk of the paths git status reported, which the turn end compares
// with (turnChanges).
// Only the dirty paths are read (ws is the hook's one git status).
func (m *ManualCommit) recordUserEdits(st *session.State, head plumbing.Hash, ws *worktreeStatus) (map[string]checkpoint.Entry, error) {
	repo := m.env.Repo
	hc, err := repo.Git.CommitObject(head)
	if err != nil {
		return nil, fmt.Errorf("read HEAD commit %s: %w", head, err)
	}
	since, sinceID, err := m.latestTree(st)
	if err != nil {
		return nil, err
	}
	if since.IsZero() {
		since = hc.TreeHash
	}
	st.PendingPromptAttribution = nil
	edits, disk, err := checkpoint.MeasureEdits(repo, since, hc.TreeHash, ws.Dirty, st.SnapshotCache, isProtected, m.recordedDiffer(st, head, since))
	if err != nil {
		return nil, err
	}
	var step *object.Tree
	if sinceID != "" && len(edits) > 0 {
		if step, err = repo.Git.TreeObject(since); err != nil {
			return nil, fmt.Errorf("read checkpoint tree: %w", err)
		}
	}
	st.PendingPromptAttribution = m.promptAttribution(st, edits, step)
	user := make([]session.UserEdit, len(edits))
	for i, e := range edits {
		user[i] = session.UserEdit{Path: e.Path, TurnID: st.TurnID, Since: sinceID}
	}
	changeRecord(st).AddUser(user)
	return disk, nil
}

// recordedDiffer returns the paths where since (the latest turn end's
// tree, or the step made of it) can differ from HEAD's tree, as the turn
// end recorded them (session.WorkTreeRecord.Dirty: its tree is HEAD's with
// those paths as they were), so that the two trees need not be compared:
// with every turn since the last commit, that comparison grows. nil when
// the record does not describe since: HEAD moved since, or since is not
// the recorded tree or a step that adds only entire's own files to it.
func (m *ManualCommit) recordedDiffer(st *session.State, head, since plumbing.Hash) []string {
	wt := st.WorkTree
	if wt == nil || wt.Head != head.String() || wt.Tree == "" || since.IsZero() {
		return nil
	}
	if rec := plumbing.NewHash(wt.Tree); rec != since {
		// A step's tree adds the session's metadata (protected paths)
		// to the recorded one: anything else, and the record does not
		// describe it.
		other := map[string]bool{}
		if err := m.env.Repo.DiffTreePaths(rec, since, isProtected, other); err != nil || len(other) > 0 {
			return nil
		}
	}
	return append([]string{}, wt.Dirty...)
}

// prePromptDirty converts the dirty paths' states for the pre-prompt file.
func prePromptDirty(disk map[string]checkpoint.Entry) map[string]session.PathState {
	out := make(map[string]session.PathState, len(disk))
	for p, e := range disk {
		ps := session.PathState{Mode: uint32(e.Mode)}
		if e.Exists() {
			ps.Hash = e.Hash.String()
		}
		out[p] = ps
	}
	return out
}

// turnChanges returns the paths the turn changed, shell commands included:
// those whose state now differs from their state at the turn start, as the
// pre-prompt file recorded it (the paths git status reported then; every
// other path was as in that HEAD). end holds the current state of the
// paths git status reports now (ws). When HEAD moved during the turn, the
// paths the new commits changed count too. It returns false when the turn
// start recorded nothing to compare with.
func (m *ManualCommit) turnChanges(pre *session.PrePrompt, head plumbing.Hash, ws *worktreeStatus, end []gitrepo.Change) ([]string, bool) {
	if pre == nil || pre.Head == "" {
		return nil, false
	}
	repo := m.env.Repo
	startHead := plumbing.NewHash(pre.Head)
	startTree, err := repo.CommitTree(startHead)
	if err != nil {
		m.env.Log.Warn("turn changes: read the turn start's HEAD", "error", err)
		return nil, false
	}
	endTree, err := repo.CommitTree(head)
	if err != nil {
		m.env.Log.Warn("turn changes: read HEAD", "error", err)
		return nil, false
	}
	now := checkpoint.DiskEntries(ws.Dirty, end)
	cand := make(map[string]bool, len(pre.Dirty)+len(now))
	for p := range pre.Dirty {
		cand[p] = true
	}
	for p := range now {
		cand[p] = true
	}
	if startHead != head {
		if err := repo.DiffTreePaths(startTree.Hash, endTree.Hash, isProtected, cand); err != nil {
			m.env.Log.Warn("turn changes: compare HEAD with the turn start's", "error", err)
			return nil, false
		}
	}
	var changed []string
	for p := range cand {
		was := checkpoint.TreeEntry(startTree, p)
		if s, ok := pre.Dirty[p]; ok {
			was = checkpoint.Entry{Mode: filemode.FileMode(s.Mode), Hash: plumbing.NewHash(s.Hash)}
		}
		is, ok := now[p]
		if !ok {
			is = checkpoint.TreeEntry(endTree, p)
		}
		if !was.Same(is) {
			changed = append(changed, p)
		}
	}
	return unionSorted(changed), true
}

// statusPaths returns the paths git status reported at the turn start
// (the pre-prompt's record) or reports now (ws): none of them is ignored.
func statusPaths(pre *session.PrePrompt, ws *worktreeStatus) []string {
	if pre == nil {
		return ws.Dirty
	}
	out := append([]string{}, ws.Dirty...)
	for p := range pre.Dirty {
		out = append(out, p)
	}
	return unionSorted(out)
}
