package rewind

import (
	"context"
	"fmt"
	"sort"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/notes"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// notesDir is the subtree of a step's metadata dir or of a committed
// session slot that holds the notes of that moment (issue 6).
const notesDir = "notes"

// trailerUndoNotes names, in an undo point's message, the commit whose tree
// holds every notes namespace the rewind changed, as it was before (one
// subtree per agent name).
const trailerUndoNotes = "Entire-Undo-Notes"

// plannedNotes returns the notes a rewind brings back, by agent name: those
// recorded in the target step's metadata dir, or in each session slot of a
// committed point. Namespaces with nothing recorded are left alone.
func (r *Rewinder) plannedNotes(plan *Plan) map[string]plumbing.Hash {
	out := map[string]plumbing.Hash{}
	if plan.target != nil && plan.state != nil {
		e, err := plan.target.FindEntry(checkpoint.MetadataDirPrefix + plan.state.SessionID + "/" + notesDir)
		if err == nil && e.Mode == filemode.Dir {
			if name := agentName(plan.state.AgentType); name != "" {
				out[name] = e.Hash
			}
		}
		return out
	}
	if !plan.Point.IsLogsOnly || plan.Point.CondensationID == "" {
		return out
	}
	cp, err := checkpoint.NewStore(r.repo, r.now).Read(checkpoint.ID(plan.Point.CondensationID))
	if err != nil {
		return out
	}
	for _, s := range cp.Sessions {
		t, err := r.repo.Git.TreeObject(s.TreeHash())
		if err != nil {
			continue
		}
		if e, err := t.FindEntry(notesDir); err == nil && e.Mode == filemode.Dir {
			if name := agentName(string(s.Metadata.Agent)); name != "" {
				out[name] = e.Hash // later slots (newer sessions) win
			}
		}
	}
	return out
}

// agentName maps a stored agent label to the notes namespace (the agent's
// registry name); "" when unknown.
func agentName(label string) string {
	a, err := agent.GetByAgentType(agent.AgentType(label))
	if err != nil || label == "" || label == string(agent.AgentTypeUnknown) {
		return ""
	}
	return string(a.Name())
}

// notesBefore records the current notes of the namespaces about to change as
// a commit whose tree has one subtree per agent (an empty tree for a
// namespace without notes), so an undo can put them back; ZeroHash when no
// notes change.
func (r *Rewinder) notesBefore(ctx context.Context, planned map[string]plumbing.Hash) (plumbing.Hash, error) {
	if len(planned) == 0 {
		return plumbing.ZeroHash, nil
	}
	empty, err := r.repo.WriteTree(nil)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	var entries []object.TreeEntry
	for name := range planned {
		s, err := notes.NewStore(ctx, r.repo, notes.WithAgent(name))
		if err != nil {
			return plumbing.ZeroHash, err
		}
		cur, err := s.TreeHash(ctx)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if cur.IsZero() {
			cur = empty
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: cur})
	}
	sort.Sort(object.TreeEntrySorter(entries))
	tree, err := r.repo.WriteTree(entries)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	sig := r.repo.Author(r.now())
	return r.repo.WriteCommit(&object.Commit{Author: sig, Committer: sig, TreeHash: tree, Message: "notes before rewind\n"})
}

// restoreNotes makes each namespace's notes the given tree (one new commit
// on the notes branch each).
func (r *Rewinder) restoreNotes(ctx context.Context, trees map[string]plumbing.Hash) error {
	names := make([]string, 0, len(trees))
	for n := range trees {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		s, err := notes.NewStore(ctx, r.repo, notes.WithAgent(name))
		if err != nil {
			return err
		}
		if err := s.Restore(ctx, trees[name]); err != nil {
			return fmt.Errorf("restore %s notes: %w", name, err)
		}
		r.printf("  Restored notes (%s)\n", name)
	}
	return nil
}

// undoNotes reads the notes an undo point recorded (nil when none).
func (r *Rewinder) undoNotes(undo *object.Commit) (map[string]plumbing.Hash, error) {
	v, ok := checkpoint.ParseTrailers(undo.Message).Get(trailerUndoNotes)
	if !ok || v == "" {
		return nil, nil
	}
	c, err := r.repo.Git.CommitObject(plumbing.NewHash(v))
	if err != nil {
		return nil, fmt.Errorf("read undo point notes: %w", err)
	}
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read undo point notes: %w", err)
	}
	out := map[string]plumbing.Hash{}
	for _, e := range t.Entries {
		out[e.Name] = e.Hash
	}
	return out, nil
}
