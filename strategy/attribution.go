package strategy

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// Line attribution (SPEC 5.2.10) has two halves. At each turn start
// (promptAttribution) the user's edits since the newest checkpoint are
// counted in lines, per file, and kept in the session state until the
// turn's step moves them into prompt_attributions. At condensation
// (attribution) the committed lines are split between the agent and the
// person: the lines a snapshot holds are the agent's minus what the
// turn starts counted as the user's, the lines changed after the last
// snapshot are the user's, and so are the lines added to files the agent
// never touched.

// promptAttribution counts, in lines, the user's edits a turn start
// measured (checkpoint.MeasureEdits): each edited path's state in the
// checkpoint (e.Was) against its content on disk (e.Now). base is the tree
// of the session's attribution base; when the checkpoint is a shadow-branch
// step (since), the agent's lines so far in the edited files are its
// difference from base. Only the edited paths are read; binary files,
// symlinks and submodules count nothing.
func (m *ManualCommit) promptAttribution(st *session.State, edits []checkpoint.Edit, since *object.Tree) *session.PromptAttribution {
	pa := &session.PromptAttribution{CheckpointNumber: st.CheckpointCount + 1, MeasuredAt: m.env.Now().UTC()}
	if len(edits) == 0 {
		return pa
	}
	var base *object.Tree
	if since != nil {
		base, _ = m.env.Repo.CommitTree(plumbing.NewHash(st.AttributionBaseCommit))
	}
	for _, e := range edits {
		was, ok := m.entryText(e.Was)
		if !ok {
			continue
		}
		now, ok := m.diskText(e.Path, e.Now)
		if !ok {
			continue
		}
		m.keepUserVersion(pa, e.Path, now, e.Now.Exists())
		added, removed := lineDiff(was, now)
		pa.UserLinesAdded += added
		pa.UserLinesRemoved += removed
		if added > 0 {
			if pa.UserAddedPerFile == nil {
				pa.UserAddedPerFile = map[string]int{}
			}
			pa.UserAddedPerFile[e.Path] = added
		}
		if since != nil && base != nil {
			b, ok1 := m.blobText(base, e.Path)
			s, ok2 := m.blobText(since, e.Path)
			if ok1 && ok2 {
				a, r := lineDiff(b, s)
				pa.AgentLinesAdded += a
				pa.AgentLinesRemoved += r
			}
		}
	}
	return pa
}

// recordPromptAttribution moves the attribution measured at the turn
// start into the session's prompt_attributions: called when the turn's
// step is saved, as checkpoint number st.CheckpointCount. A turn without
// a step leaves it pending; the next turn start measures again from the
// same checkpoint and replaces it.
func recordPromptAttribution(st *session.State) {
	pa := st.PendingPromptAttribution
	if pa == nil {
		return
	}
	pa.CheckpointNumber = st.CheckpointCount
	st.PromptAttributions = append(st.PromptAttributions, *pa)
	st.PendingPromptAttribution = nil
}

// fileLines is what attribution counts in one file a commit changed.
type fileLines struct {
	// Agent says whether the session touched the file.
	Agent bool
	// Work is the lines added from the base to the last snapshot (agent
	// files): the agent's and the user's edits before the snapshot.
	Work int
	// PostAdded and PostRemoved are the lines changed from the last
	// snapshot to the commit (agent files).
	PostAdded, PostRemoved int
	// HeadAdded is the lines added from the base to the commit (files
	// the agent never touched).
	HeadAdded int
	// UserAdded is the lines the turn starts counted as the user's.
	UserAdded int
}

// attributionCounts are the session-wide sums the turn starts recorded.
type attributionCounts struct {
	UserAdded, UserRemoved int
}

// computeAttribution is the arithmetic of SPEC 5.2.10 over the files of a
// commit and the user's edits the turn starts counted (acc, all files):
//
//	agent_added     = work − user additions counted in agent files
//	user added      = acc added + post-snapshot added + (base→commit added
//	                  in other files − what the turn starts counted there)
//	user removed    = acc removed + post-snapshot removed
//	human_modified  = min(user added, user removed); the rest is pure
//	self_modified   = Σ agent files min(post removed, user additions)
//	agent_lines     = max(0, agent_added − pure removed − (modified − self))
//	total_committed = agent_added + pure added − pure removed (≤0: agent_added)
//
// The percentage is agent_lines / total_committed × 100 (0 when nothing
// was committed). CalculatedAt is left for the caller.
func computeAttribution(files []fileLines, acc attributionCounts) checkpoint.Attribution {
	var work, accAgent, postAdded, postRemoved, other, self int
	for _, f := range files {
		if f.Agent {
			work += f.Work
			accAgent += f.UserAdded
			postAdded += f.PostAdded
			postRemoved += f.PostRemoved
			self += min(f.PostRemoved, f.UserAdded)
			continue
		}
		other += max(0, f.HeadAdded-f.UserAdded)
	}
	agentAdded := max(0, work-accAgent)
	userAdded := acc.UserAdded + postAdded + other
	userRemoved := acc.UserRemoved + postRemoved
	modified := min(userAdded, userRemoved)
	pureAdded, pureRemoved := userAdded-modified, userRemoved-modified
	agentLines := max(0, agentAdded-pureRemoved-max(0, modified-self))
	total := agentAdded + pureAdded - pureRemoved
	if total <= 0 {
		total = agentAdded
	}
	return checkpoint.Attribution{
		AgentLines: agentLines, HumanAdded: pureAdded, HumanModified: modified, HumanRemoved: pureRemoved,
		TotalCommitted: total, AgentPercentage: percentage(agentLines, total),
	}
}

// percentage is part / whole × 100, 0 for an empty whole.
func percentage(part, whole int) float64 {
	if whole <= 0 {
		return 0
	}
	return float64(part) / float64(whole) * 100
}

// attribution computes the line attribution of the session's work in
// commit (SPEC 5.2.10): files are the session's touched files, tip its
// last snapshot, and st.PromptAttributions the user's edits its turn
// starts counted. The files the commit changed (against the session's
// attribution base) are read, nothing else; a touched file the commit
// left out adds nothing to it. Binary files are skipped. It returns nil
// when the session touched no file.
func (m *ManualCommit) attribution(st *session.State, tip plumbing.Hash, commit *object.Commit, files []string, cc *commitChanges) *checkpoint.Attribution {
	if len(files) == 0 || cc == nil {
		return nil
	}
	shadow, err := m.env.Repo.CommitTree(tip)
	if err != nil || shadow == nil {
		return nil
	}
	trees := []*object.Tree{cc.base, shadow, cc.head}
	changed := cc.changed
	touched := make(map[string]bool, len(files))
	for _, f := range files {
		touched[f] = true
	}
	var acc attributionCounts
	perFile := map[string]int{}
	for _, pa := range st.PromptAttributions {
		acc.UserAdded += pa.UserLinesAdded
		acc.UserRemoved += pa.UserLinesRemoved
		for p, n := range pa.UserAddedPerFile {
			perFile[p] += n
		}
	}
	counts := make([]fileLines, 0, len(changed))
	for p := range changed {
		fl := fileLines{Agent: touched[p], UserAdded: perFile[p]}
		base, ok1 := m.blobText(trees[0], p)
		head, ok3 := m.blobText(trees[2], p)
		if !ok1 || !ok3 {
			continue
		}
		if fl.Agent {
			shadow, ok := m.blobText(trees[1], p)
			if !ok {
				continue
			}
			fl.Work, _ = lineDiff(base, shadow)
			fl.PostAdded, fl.PostRemoved = lineDiff(shadow, head)
		} else {
			fl.HeadAdded, _ = lineDiff(base, head)
		}
		counts = append(counts, fl)
	}
	a := computeAttribution(counts, acc)
	a.CalculatedAt = m.env.Now().UTC()
	return &a
}

// commitChanges is what a condensation compares: the trees of the
// session's attribution base and of the commit, and the paths where they
// differ.
type commitChanges struct {
	base, head *object.Tree
	changed    map[string]bool
}

// changesOf compares the session's attribution base with commit; nil when
// either cannot be read.
func (m *ManualCommit) changesOf(st *session.State, commit *object.Commit) *commitChanges {
	repo := m.env.Repo
	base, err := repo.CommitTree(plumbing.NewHash(st.AttributionBaseCommit))
	if err != nil || base == nil {
		return nil
	}
	head, err := commit.Tree()
	if err != nil {
		return nil
	}
	changed := map[string]bool{}
	if err := repo.DiffTreePaths(base.Hash, head.Hash, isProtected, changed); err != nil {
		m.env.Log.Warn("attribution: compare the commit with the session's base", "error", err)
		return nil
	}
	return &commitChanges{base: base, head: head, changed: changed}
}

// lineDiff counts the lines added and removed from a to b.
func lineDiff(a, b string) (added, removed int) {
	if a == b {
		return 0, 0
	}
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	for _, d := range dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines) {
		n := strings.Count(d.Text, "\n")
		if !strings.HasSuffix(d.Text, "\n") && d.Text != "" {
			n++
		}
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			added += n
		case diffmatchpatch.DiffDelete:
			removed += n
		}
	}
	return added, removed
}

// blobText returns the text of the blob at path in t, or "" (and false for
// binary content); an unreadable blob counts as absent.
func (m *ManualCommit) blobText(t *object.Tree, path string) (string, bool) {
	text, ok, err := m.readText(m.entryOf(t, path))
	if err != nil {
		return "", true
	}
	return text, ok
}

// readText returns blob h's text, read once a condensation (false for
// binary content; "" for the zero hash, a deleted file).
func (m *ManualCommit) readText(h plumbing.Hash) (string, bool, error) {
	if h.IsZero() {
		return "", true, nil
	}
	if c, ok := m.cachedText(h); ok {
		return c.text, c.ok, nil
	}
	b, err := m.env.Repo.ReadBlob(h)
	if err != nil {
		return "", false, err
	}
	text, ok := asText(b)
	if m.texts != nil {
		m.texts[h] = cachedText{text, ok}
	}
	return text, ok, nil
}

// entryText returns the text of a path's state in a checkpoint ("" when
// absent; false for binary content, a symlink or a submodule).
func (m *ManualCommit) entryText(e checkpoint.Entry) (string, bool) {
	if !e.Exists() {
		return "", true
	}
	if !regularFile(e.Mode) {
		return "", false
	}
	b, err := m.env.Repo.ReadBlob(e.Hash)
	if err != nil {
		return "", true
	}
	return asText(b)
}

// diskText returns the text of a work-tree file whose state git status
// reported (now): "" when absent, false for binary content, a symlink or
// a file that cannot be read.
func (m *ManualCommit) diskText(path string, now checkpoint.Entry) (string, bool) {
	if !now.Exists() {
		return "", true
	}
	if !regularFile(now.Mode) {
		return "", false
	}
	// Status saw a regular file: one swapped for a link since is not
	// read through (gitrepo.OpenNoFollow, as HashWorktree reads).
	f, err := gitrepo.OpenNoFollow(filepath.Join(m.env.Repo.Root, filepath.FromSlash(path)))
	if err != nil {
		return "", false
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return "", false
	}
	return asText(b)
}

// regularFile reports whether mode is a file with content lines (not a
// symlink or a submodule).
func regularFile(mode filemode.FileMode) bool {
	return mode == filemode.Regular || mode == filemode.Executable || mode == filemode.Deprecated
}

// asText returns b as a string, false when it looks binary (a NUL byte in
// its first 8000 bytes, as git decides).
func asText(b []byte) (string, bool) {
	if bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
		return "", false
	}
	return string(b), true
}

// cachedText returns blob h's text as this condensation already read it.
func (m *ManualCommit) cachedText(h plumbing.Hash) (cachedText, bool) {
	if c, ok := m.prefetched[h]; ok {
		return c, true
	}
	c, ok := m.texts[h]
	return c, ok
}

// maxPrefetch bounds the bytes prefetchTexts reads ahead; blobs past it
// are read when asked for.
const maxPrefetch = 64 << 20

// prefetchTexts reads ahead the blobs a condensation compares, before the
// line record and the attribution split the work between them: each
// changed path as the attribution base and the commit hold it, and as the
// shadow tip holds those the session touched. The packed ones (the
// base's, mostly) are read in groups (gitrepo.Repo.ReadBlobs), where
// reading them one by one costs a round trip to git each.
func (m *ManualCommit) prefetchTexts(cc *commitChanges, tip plumbing.Hash, files []string) map[plumbing.Hash]cachedText {
	repo := m.env.Repo
	var shadow *object.Tree
	if !tip.IsZero() {
		shadow, _ = repo.CommitTree(tip)
	}
	touched := make(map[string]bool, len(files))
	for _, f := range files {
		touched[f] = true
	}
	seen := map[plumbing.Hash]bool{}
	var hs []plumbing.Hash
	add := func(t *object.Tree, p string) {
		if h := m.entryOf(t, p); !h.IsZero() && !seen[h] {
			seen[h] = true
			hs = append(hs, h)
		}
	}
	for p := range cc.changed {
		add(cc.base, p)
		add(cc.head, p)
		if touched[p] && shadow != nil {
			add(shadow, p)
		}
	}
	out := make(map[plumbing.Hash]cachedText, len(hs))
	budget := maxPrefetch
	err := repo.ReadBlobs(hs, func(h plumbing.Hash, data []byte) bool {
		text, ok := asText(data)
		out[h] = cachedText{text, ok}
		budget -= len(data)
		return budget > 0
	})
	if err != nil {
		m.env.Log.Warn("attribution: read the compared blobs", "error", err)
	}
	return out
}
