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
)

// plannedNotes returns the notes a rewind brings back, by agent name: those
// recorded in the target step's metadata dir, or in each session slot of a
// committed point (checkpoint.NotesDir, issue 6). Namespaces with nothing
// recorded are left alone.
func (r *Rewinder) plannedNotes(plan *Plan) map[string]plumbing.Hash {
	out := map[string]plumbing.Hash{}
	if plan.target != nil && plan.state != nil {
		e, err := plan.target.FindEntry(checkpoint.MetadataDirPrefix + plan.state.SessionID + "/" + checkpoint.NotesDir)
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
		if tree, ok := checkpoint.NotesTree(r.repo, s.TreeHash()); ok {
			if name := agentName(string(s.Metadata.Agent)); name != "" {
				out[name] = tree // later slots (newer sessions) win
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

// notesBefore returns the current notes tree of each namespace about to
// change ("" for a namespace without notes), so an undo can put them back:
// restoring commits on the notes branch, whose history keeps these trees.
func (r *Rewinder) notesBefore(ctx context.Context, planned map[string]plumbing.Hash) (map[string]string, error) {
	if len(planned) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for name := range planned {
		s, err := notes.NewStore(ctx, r.repo, notes.WithAgent(name))
		if err != nil {
			return nil, err
		}
		cur, err := s.TreeHash(ctx)
		if err != nil {
			return nil, err
		}
		out[name] = ""
		if !cur.IsZero() {
			out[name] = cur.String()
		}
	}
	return out, nil
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
