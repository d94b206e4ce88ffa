package explain

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// List loads the list view of the current branch (SPEC 1.9): committed
// checkpoints linked from the last 500 commits of HEAD (on another branch
// than the default one: its first-parent commits not reachable from the
// default branch), and
// the temporary checkpoints on the current worktree's shadow branches whose
// base commit is reachable from HEAD, grouped by checkpoint (temporary ones
// by session), newest first, at most 100. A non-empty session keeps only
// checkpoints with a session whose ID starts with it. Linked checkpoints
// that cannot be read are listed in Unreadable; those not on the metadata
// branch (not fetched) are left out.
func (l *Loader) List(ctx context.Context, session string) (*ListView, error) {
	v := &ListView{Session: session}
	head, err := l.Repo.Head()
	rev := "HEAD"
	if l.Branch != "" {
		rev = "refs/heads/" + l.Branch
		head, err = l.Repo.ReadRef(plumbing.ReferenceName(rev))
	}
	if err != nil || head.IsZero() {
		v.Branch = "HEAD (no commits yet)"
		return v, nil
	}
	if l.Branch != "" {
		v.Branch = l.Branch
	} else if b, err := l.Repo.HeadBranch(); err == nil && b != "" {
		v.Branch = b
	} else {
		v.Branch = "HEAD (" + short7(head.String()) + ")"
	}
	args := []string{"--grep=Entire-Checkpoint:", "-n", strconv.Itoa(historyLimit), rev}
	if def := l.DefaultBranch; def != "" && def != v.Branch && !strings.HasSuffix(def, "/"+v.Branch) {
		args = append(args, "--first-parent", "--not", def, "--")
	}
	entries, err := l.gitLog(ctx, args...)
	if err != nil {
		return nil, err
	}
	// A hundred checkpoints are read below: from one root tree.
	store, err := l.Store.Pinned()
	if err != nil {
		return nil, err
	}
	type group struct {
		ListGroup
		newest int64
	}
	var groups []*group
	byID := map[string]*group{}
	for _, e := range entries {
		// Every checkpoint a commit carries (a squash, a commit of today's
		// Entire with a ULID and a hex ID).
		for _, id := range checkpoint.CheckpointsOf(e.Message) {
			g := byID[string(id)]
			if g == nil {
				if len(groups) >= listLimit {
					continue // only the checkpoints listed count
				}
				cp, err := store.Read(id)
				if err != nil && !errors.Is(err, checkpoint.ErrNotFound) {
					// Not "no checkpoint": say which one cannot be read.
					v.Unreadable = append(v.Unreadable, err)
				}
				if err != nil || !hasSession(cp, session) {
					byID[string(id)] = &group{} // remembered as skipped
					continue
				}
				g = &group{ListGroup: ListGroup{ID: string(id), Prompt: firstStoredPrompt(cp)}, newest: e.Date.Unix()}
				for _, s := range cp.Sessions {
					g.Task = g.Task || s.Metadata.IsTask
				}
				byID[string(id)] = g
				groups = append(groups, g)
			}
			if g.ID != "" {
				g.Commits = append(g.Commits, e.Commit)
			}
		}
	}
	for _, tg := range l.temporaryGroups(ctx, head, session) {
		groups = append(groups, &group{ListGroup: tg, newest: tg.Commits[0].Date.Unix()})
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].newest > groups[j].newest })
	if len(groups) > listLimit {
		groups = groups[:listLimit]
	}
	for _, g := range groups {
		v.Groups = append(v.Groups, g.ListGroup)
	}
	return v, nil
}

func hasSession(cp *checkpoint.Checkpoint, prefix string) bool {
	if prefix == "" {
		return true
	}
	for _, s := range cp.Sessions {
		if strings.HasPrefix(s.Metadata.SessionID, prefix) {
			return true
		}
	}
	return false
}

// firstStoredPrompt is the first prompt of the latest session that has one.
func firstStoredPrompt(cp *checkpoint.Checkpoint) string {
	for i := len(cp.Sessions) - 1; i >= 0; i-- {
		if p := cp.Sessions[i].Prompts(); len(p) > 0 {
			return p[0]
		}
	}
	return ""
}

// temporaryGroups returns the temporary checkpoints of the current
// worktree's shadow branches whose base commit is reachable from head,
// grouped by session, skipping steps that changed only .entire/.
func (l *Loader) temporaryGroups(ctx context.Context, head plumbing.Hash, session string) []ListGroup {
	refs, err := l.Repo.ListRefs("refs/heads/entire/")
	if err != nil {
		return nil
	}
	_, myHash, _ := checkpoint.ParseShadowBranch(checkpoint.ShadowBranchName("0000000", l.Repo.WorktreeID))
	var names []string
	for name := range refs {
		names = append(names, string(name))
	}
	sort.Strings(names)
	bySession := map[string]*ListGroup{}
	var order []string
	for _, name := range names {
		base, wt, ok := checkpoint.ParseShadowBranch(strings.TrimPrefix(name, "refs/heads/"))
		if !ok || (wt != "" && wt != myHash) || !l.reachable(ctx, base, head) {
			continue
		}
		l.walkShadow(refs[plumbing.ReferenceName(name)], func(c *object.Commit) bool {
			info := checkpoint.ParseStep(c)
			if info.SessionID == "" || !strings.HasPrefix(info.SessionID, session) || l.onlyMetadata(c) {
				return true
			}
			g := bySession[info.SessionID]
			if g == nil {
				g = &ListGroup{ID: info.SessionID, Temporary: true}
				bySession[info.SessionID] = g
				order = append(order, info.SessionID)
			}
			g.Task = g.Task || info.IsTask
			g.Commits = append(g.Commits, Commit{SHA: c.Hash.String(), Date: c.Author.When, Subject: info.Subject})
			if g.Prompt == "" {
				g.Prompt = l.shadowPrompt(c, info.SessionID)
			}
			return true
		})
	}
	var out []ListGroup
	for _, id := range order {
		g := bySession[id]
		sort.SliceStable(g.Commits, func(i, j int) bool { return g.Commits[i].Date.After(g.Commits[j].Date) })
		out = append(out, *g)
	}
	return out
}

// reachable reports whether the commit named by prefix is an ancestor of
// head.
func (l *Loader) reachable(ctx context.Context, prefix string, head plumbing.Hash) bool {
	out, err := l.Repo.RunGit(ctx, "rev-parse", "--verify", "--quiet", prefix+"^{commit}")
	if err != nil {
		return false
	}
	base := strings.TrimSpace(string(out))
	if base == head.String() {
		return true
	}
	_, err = l.Repo.RunGit(ctx, "merge-base", "--is-ancestor", base, head.String())
	return err == nil
}

// onlyMetadata reports whether a shadow commit changed nothing outside
// .entire/ compared with its parent.
func (l *Loader) onlyMetadata(c *object.Commit) bool {
	if len(c.ParentHashes) == 0 {
		return false
	}
	p, err := l.Repo.Git.CommitObject(c.ParentHashes[0])
	if err != nil {
		return false
	}
	a, err1 := c.Tree()
	b, err2 := p.Tree()
	if err1 != nil || err2 != nil {
		return false
	}
	return sameOutsideEntire(a, b)
}

func sameOutsideEntire(a, b *object.Tree) bool {
	strip := func(t *object.Tree) []object.TreeEntry {
		var out []object.TreeEntry
		for _, e := range t.Entries {
			if e.Name != ".entire" {
				out = append(out, e)
			}
		}
		return out
	}
	ea, eb := strip(a), strip(b)
	if len(ea) != len(eb) {
		return false
	}
	for i := range ea {
		if ea[i] != eb[i] {
			return false
		}
	}
	return true
}

func (l *Loader) shadowPrompt(c *object.Commit, sessionID string) string {
	t, err := c.Tree()
	if err != nil {
		return ""
	}
	f, err := t.File(checkpoint.MetadataDirPrefix + sessionID + "/" + checkpoint.PromptFile)
	if err != nil {
		return ""
	}
	b, err := l.Repo.ReadBlob(f.Hash)
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(string(b), "\n\n---\n\n")
	return first
}
