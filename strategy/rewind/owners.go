package rewind

import (
	"fmt"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// changeOwners is what the session states of a work tree say about who
// changed its paths.
type changeOwners struct {
	// others maps each path another live (not ended) session touched
	// (its files_touched) to that session's ID.
	others map[string]string
	// sessions are the paths a recorded turn of any session changed.
	sessions map[string]bool
	// userAfter maps each path the user edited between turns to the
	// checkpoints the edits were measured against ("" for HEAD).
	userAfter map[string][]string
}

// owners reads the session states of the work tree; self is the session
// being rewound. A state without a change record (written by a version
// without one) counts its files_touched as changed by its turns.
func (r *Rewinder) owners(self string) (*changeOwners, error) {
	sums, _, err := r.sessions.Find(session.Query{WorktreePath: r.repo.Root})
	if err != nil {
		return nil, err
	}
	o := &changeOwners{others: map[string]string{}, sessions: map[string]bool{}, userAfter: map[string][]string{}}
	for _, s := range sums {
		st, err := r.sessions.Load(s.SessionID)
		if err != nil {
			continue
		}
		live := st.Phase != session.PhaseEnded && st.EndedAt == nil
		if s.SessionID != self && live {
			for _, f := range st.FilesTouched {
				o.others[f] = s.SessionID
			}
		}
		if st.Changes == nil {
			for _, f := range st.FilesTouched {
				o.sessions[f] = true
			}
			continue
		}
		for _, f := range st.Changes.Turns {
			o.sessions[f] = true
		}
		for _, e := range st.Changes.User {
			o.userAfter[e.Path] = append(o.userAfter[e.Path], e.Since)
		}
	}
	return o, nil
}

// editedAfter reports whether a measured user edit of path came after one
// of the checkpoints in after.
func (o *changeOwners) editedAfter(path string, after map[plumbing.Hash]bool) bool {
	for _, since := range o.userAfter[path] {
		if since != "" && after[plumbing.NewHash(since)] {
			return true
		}
	}
	return false
}

// walkBranch visits the commits of a shadow branch from its tip along
// first parents, at most 5×MaxPoints of them, until visit returns false.
func (r *Rewinder) walkBranch(branch string, visit func(*object.Commit) bool) error {
	h, err := r.repo.ReadRef(checkpoint.ShadowRef(branch))
	if err != nil {
		return err
	}
	for i := 0; i < 5*MaxPoints && !h.IsZero(); i++ {
		c, err := r.repo.Git.CommitObject(h)
		if err != nil {
			return fmt.Errorf("read commit %s of shadow branch %s: %w", h, branch, err)
		}
		if !visit(c) {
			return nil
		}
		h = plumbing.ZeroHash
		if len(c.ParentHashes) > 0 {
			h = c.ParentHashes[0]
		}
	}
	return nil
}

// since returns the tree of the newest checkpoint of p's branch (nil when
// the branch is gone) and the checkpoints from p to it: a user edit
// measured against one of them came after p.
func (r *Rewinder) since(p Point) (*object.Tree, map[plumbing.Hash]bool, error) {
	var tip *object.Tree
	after := map[plumbing.Hash]bool{}
	var err error
	werr := r.walkBranch(p.Branch, func(c *object.Commit) bool {
		if tip == nil {
			if tip, err = c.Tree(); err != nil {
				err = fmt.Errorf("read commit %s tree %s of shadow branch %s: %w", c.Hash, c.TreeHash, p.Branch, err)
				return false
			}
		}
		after[c.Hash] = true
		return c.Hash.String() != p.ID
	})
	if werr != nil {
		return nil, nil, werr
	}
	return tip, after, err
}
