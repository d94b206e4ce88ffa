package strategy

import (
	"bytes"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/session"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// attribution estimates how many of the committed lines of the touched
// files the agent wrote (SPEC 5.2.10, simplified): lines added from the
// session's base to its last snapshot are the agent's; lines the user
// changed between that snapshot and the commit are the person's. Only the
// touched files are read, and binary files are skipped.
func (m *ManualCommit) attribution(st *session.State, tip plumbing.Hash, commit *object.Commit, files []string) *checkpoint.Attribution {
	repo := m.env.Repo
	trees := make([]*object.Tree, 3)
	for i, h := range []plumbing.Hash{plumbing.NewHash(st.AttributionBaseCommit), tip, commit.Hash} {
		c, err := repo.Git.CommitObject(h)
		if err != nil {
			return nil
		}
		if trees[i], err = c.Tree(); err != nil {
			return nil
		}
	}
	var agentAdded, userAdded, userRemoved int
	for _, f := range files {
		base, ok1 := m.blobText(trees[0], f)
		shadow, ok2 := m.blobText(trees[1], f)
		head, ok3 := m.blobText(trees[2], f)
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		a, _ := lineDiff(base, shadow)
		agentAdded += a
		ua, ur := lineDiff(shadow, head)
		userAdded += ua
		userRemoved += ur
	}
	modified := min(userAdded, userRemoved)
	pureAdded, pureRemoved := userAdded-modified, userRemoved-modified
	agentLines := max(0, agentAdded-pureRemoved-modified)
	total := agentAdded + pureAdded - pureRemoved
	if total <= 0 {
		total = agentAdded
	}
	pct := 0.0
	if total > 0 {
		pct = float64(agentLines) / float64(total) * 100
	}
	return &checkpoint.Attribution{
		CalculatedAt: m.env.Now().UTC(), AgentLines: agentLines, HumanAdded: pureAdded,
		HumanModified: modified, HumanRemoved: pureRemoved, TotalCommitted: total, AgentPercentage: pct,
	}
}

// lineDiff counts the lines added and removed from a to b.
func lineDiff(a, b string) (added, removed int) {
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
// binary content).
func (m *ManualCommit) blobText(t *object.Tree, path string) (string, bool) {
	h := entryHash(t, path)
	if h.IsZero() {
		return "", true
	}
	b, err := m.env.Repo.ReadBlob(h)
	if err != nil {
		return "", true
	}
	if bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
		return "", false
	}
	return string(b), true
}
