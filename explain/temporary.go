package explain

import (
	"fmt"
	"sort"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Temporary finds a shadow commit (temporary checkpoint) whose hash starts
// with prefix (at least 4 hex characters) on any shadow branch. It returns
// an error wrapping checkpoint.ErrNotFound when there is none.
func (l *Loader) Temporary(prefix string) (*object.Commit, error) {
	prefix = strings.ToLower(prefix)
	if len(prefix) < 4 || strings.Trim(prefix, "0123456789abcdef") != "" {
		return nil, fmt.Errorf("%w: %s", checkpoint.ErrNotFound, prefix)
	}
	refs, err := l.Repo.ListRefs("refs/heads/entire/")
	if err != nil {
		return nil, err
	}
	for name, tip := range refs {
		if _, _, ok := checkpoint.ParseShadowBranch(strings.TrimPrefix(string(name), "refs/heads/")); !ok {
			continue
		}
		var found *object.Commit
		l.walkShadow(tip, func(c *object.Commit) bool {
			if strings.HasPrefix(c.Hash.String(), prefix) {
				found = c
				return false
			}
			return true
		})
		if found != nil {
			return found, nil
		}
	}
	return nil, fmt.Errorf("%w: %s", checkpoint.ErrNotFound, prefix)
}

// shadowWalkLimit bounds how many commits of one shadow branch are read.
const shadowWalkLimit = 1000

// walkShadow visits the commits of a shadow branch from its tip along first
// parents until fn returns false.
func (l *Loader) walkShadow(tip plumbing.Hash, fn func(*object.Commit) bool) {
	h := tip
	for i := 0; i < shadowWalkLimit && !h.IsZero(); i++ {
		c, err := l.Repo.Git.CommitObject(h)
		if err != nil || !fn(c) {
			return
		}
		h = plumbing.ZeroHash
		if len(c.ParentHashes) > 0 {
			h = c.ParentHashes[0]
		}
	}
}

// TemporaryView loads the view of a shadow commit: its session, the
// session transcript stored in it (the whole session up to that step) and
// the files that differ from the previous step.
func (l *Loader) TemporaryView(c *object.Commit, mode Mode) (*CheckpointView, error) {
	info := checkpoint.ParseStep(c)
	v := &CheckpointView{ID: c.Hash.String(), Temporary: true, Created: c.Author.When}
	sv := SessionView{ID: info.SessionID, ToolUseID: info.ToolUseID}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read shadow commit %s: %w", short7(c.Hash.String()), err)
	}
	dir := checkpoint.MetadataDirPrefix + info.SessionID
	if sub, err := tree.Tree(dir); err == nil {
		if b, err := l.blob(sub, checkpoint.PromptFile); err == nil && len(b) > 0 {
			sv.Prompts = strings.Split(string(b), "\n\n---\n\n")
		}
		if mode != ModeShort {
			if content, err := l.chunkedTranscript(sub); err == nil && content != nil {
				if sv.Transcript, err = ParseTranscript(content, 0); err != nil {
					return nil, err
				}
				l.relativize(sv.Transcript)
			}
		}
	}
	v.Sessions = []SessionView{sv}
	v.Files = l.changedFiles(c, tree)
	return v, nil
}

func (l *Loader) blob(t *object.Tree, name string) ([]byte, error) {
	e, err := t.FindEntry(name)
	if err != nil {
		return nil, fmt.Errorf("find %s in tree %s: %w", name, t.Hash, err)
	}
	return l.Repo.ReadBlob(e.Hash)
}

// chunkedTranscript reads full.jsonl and its chunks (or full.log) from a
// metadata directory tree, with the values of its long lines put back;
// nil when there is none.
func (l *Loader) chunkedTranscript(dir *object.Tree) ([]byte, error) {
	st := checkpoint.StoredIn(dir)
	if len(st.Chunks) == 0 {
		return nil, nil
	}
	return checkpoint.ReadTranscript(l.Repo, st, "")
}

// changedFiles lists the paths outside .entire/ that differ between a
// shadow commit and its parent (all its files for the first step).
func (l *Loader) changedFiles(c *object.Commit, tree *object.Tree) []string {
	var parent *object.Tree
	if len(c.ParentHashes) > 0 {
		if pc, err := l.Repo.Git.CommitObject(c.ParentHashes[0]); err == nil {
			parent, _ = pc.Tree()
		}
	}
	changes, err := object.DiffTree(parent, tree)
	if err != nil {
		return nil
	}
	var files []string
	for _, ch := range changes {
		name := ch.To.Name
		if name == "" {
			name = ch.From.Name
		}
		if !strings.HasPrefix(name, ".entire/") {
			files = append(files, name)
		}
	}
	sort.Strings(files)
	return files
}
