package strategy

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/hide"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/notes"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// StepNotesTree returns the checkpoint.NotesDir subtree of session sessionID's metadata
// dir at shadow commit step; ok is false when the step has none.
func StepNotesTree(repo *gitrepo.Repo, step plumbing.Hash, sessionID string) (plumbing.Hash, bool) {
	c, err := repo.Git.CommitObject(step)
	if err != nil {
		return plumbing.ZeroHash, false
	}
	root, err := c.Tree()
	if err != nil {
		return plumbing.ZeroHash, false
	}
	e, err := root.FindEntry(metadataDir(sessionID) + "/" + checkpoint.NotesDir)
	if err != nil || e.Mode != filemode.Dir {
		return plumbing.ZeroHash, false
	}
	return e.Hash, true
}

// SessionHideIDs returns the hide IDs recorded in a session slot's
// checkpoint.HidesFile; nil when the slot has none. A malformed file is an error.
func SessionHideIDs(sess *checkpoint.Session) ([]string, error) {
	b, err := sess.File(checkpoint.HidesFile)
	if err != nil {
		return nil, nil
	}
	var ids []string
	if err := json.Unmarshal(b, &ids); err != nil {
		return nil, fmt.Errorf("parse %s: %w", checkpoint.HidesFile, err)
	}
	return ids, nil
}

// RestoreNotes makes the notes of agentName ("claude-code", "gemini") what
// tree holds (a hash NotesTree or StepNotesTree returned), as one new
// commit on the notes branch; history keeps what was replaced, so the notes
// tree of before (notes.Store.TreeHash, read first) restores an undo.
func RestoreNotes(ctx context.Context, repo *gitrepo.Repo, agentName string, tree plumbing.Hash) error {
	s, err := notes.NewStore(ctx, repo, notes.WithAgent(agentName))
	if err != nil {
		return err
	}
	return s.Restore(ctx, tree)
}

// notesTreeNow returns the current notes tree of the session's agent, or
// ZeroHash (no branch, no notes, unknown agent). It only reads.
func (m *ManualCommit) notesTreeNow(ctx context.Context, st *session.State) plumbing.Hash {
	in := m.turnInput(st)
	if in.Agent == nil {
		return plumbing.ZeroHash
	}
	s, err := notes.NewStore(ctx, m.env.Repo, notes.WithAgent(string(in.Agent.Name())))
	if err != nil {
		return plumbing.ZeroHash
	}
	h, err := s.TreeHash(ctx)
	if err != nil {
		m.env.Log.Warn("read notes tree", "session_id", st.SessionID, "error", err)
		return plumbing.ZeroHash
	}
	return h
}

// stepTrees returns the trees grafted into a step's metadata dir.
func (m *ManualCommit) stepTrees(ctx context.Context, st *session.State) map[string]plumbing.Hash {
	if h := m.notesTreeNow(ctx, st); !h.IsZero() {
		return map[string]plumbing.Hash{checkpoint.NotesDir: h}
	}
	return nil
}

// slotLinks returns the checkpoint.HidesFile and checkpoint.NotesDir of a session slot being
// condensed: the session's hides made since its previous checkpoint
// (hidesInScope), and its agent's notes tree now.
func (m *ManualCommit) slotLinks(ctx context.Context, st *session.State) (map[string][]byte, map[string]plumbing.Hash) {
	var files map[string][]byte
	if ids := m.hidesInScope(st); len(ids) > 0 {
		b, _ := json.MarshalIndent(ids, "", "  ")
		files = map[string][]byte{checkpoint.HidesFile: append(b, '\n')}
	}
	return files, m.stepTrees(ctx, st)
}

// hidesInScope returns the IDs of the hides of st's session made since its
// previous checkpoint, oldest first. That checkpoint is the one of the
// commit the session was last condensed on (st.AttributionBaseCommit, which
// only a condensation moves); the hides in scope are created at or after
// its slot's creation second and not listed in its checkpoint.HidesFile. A session
// never condensed has all its hides in scope.
func (m *ManualCommit) hidesInScope(st *session.State) []string {
	if ref, err := m.env.Repo.ReadRef(hide.BranchRef); err != nil || ref.IsZero() {
		return nil
	}
	all, err := hide.NewStore(m.env.Repo).List()
	if err != nil {
		m.env.Log.Warn("list hides", "session_id", st.SessionID, "error", err)
		return nil
	}
	base := st.AttributionBaseCommit
	if base == "" {
		base = st.BaseCommit
	}
	since, seen := m.previousHides(base, st.SessionID)
	var ids []string
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].SessionID == st.SessionID && all[i].CreatedAt >= since && !seen[all[i].ID] {
			ids = append(ids, all[i].ID)
		}
	}
	return ids
}

// previousHides returns the Unix time the session's slot of the checkpoint
// linked to commit base was created and the hide IDs it lists (0 and none
// when base is not linked, the session has no slot there, or it cannot be
// read).
func (m *ManualCommit) previousHides(base, sessionID string) (int64, map[string]bool) {
	s := m.previousSlot(base, sessionID)
	if s == nil {
		return 0, nil
	}
	seen := map[string]bool{}
	ids, _ := SessionHideIDs(s)
	for _, h := range ids {
		seen[h] = true
	}
	return s.Metadata.CreatedAt.Unix(), seen
}

// previousSlot returns the session's slot of the checkpoint linked to
// commit base (see hidesInScope for which commit that is); nil when base
// is not linked, the session has no slot there, or it cannot be read.
func (m *ManualCommit) previousSlot(base, sessionID string) *checkpoint.Session {
	if base == "" {
		return nil
	}
	c, err := m.env.Repo.Git.CommitObject(plumbing.NewHash(base))
	if err != nil {
		return nil
	}
	id, ok := checkpoint.CheckpointOf(c.Message)
	if !ok {
		return nil
	}
	cp, err := m.env.checkpoints().Read(id)
	if err != nil {
		return nil
	}
	for _, s := range cp.Sessions {
		if s.Metadata.SessionID == sessionID {
			return s
		}
	}
	return nil
}

// promptsBefore returns the prompts of the session before the checkpoint
// scope a condensation scanned from from: those its previous checkpoint
// lists (which held every prompt up to its own scope's end, where this
// scope starts). None when the scan started at the transcript's start.
// It reads one slot's prompt.txt, not the transcript.
func (m *ManualCommit) promptsBefore(st *session.State, from agent.Position) []string {
	if from == (agent.Position{}) {
		return nil
	}
	base := st.AttributionBaseCommit
	if base == "" {
		base = st.BaseCommit
	}
	if s := m.previousSlot(base, st.SessionID); s != nil {
		return s.Prompts()
	}
	return nil
}

// keptLinks returns the checkpoint.HidesFile and checkpoint.NotesDir an existing slot holds, for
// a rewrite of the slot that must keep them.
func keptLinks(repo *gitrepo.Repo, sess *checkpoint.Session) (map[string][]byte, map[string]plumbing.Hash) {
	var files map[string][]byte
	if b, err := sess.File(checkpoint.HidesFile); err == nil {
		files = map[string][]byte{checkpoint.HidesFile: b}
	}
	var trees map[string]plumbing.Hash
	if h, ok := checkpoint.NotesTree(repo, sess.TreeHash()); ok {
		trees = map[string]plumbing.Hash{checkpoint.NotesDir: h}
	}
	return files, trees
}
