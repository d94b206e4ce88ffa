package search

import (
	"context"
	"strconv"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
)

// recentCommits bounds the commits commitFinder reads: a checkpoint whose
// line record does not name its commit (a session that changed no
// committed file, or one written before the records) is looked for among
// the newest commits of every branch.
const recentCommits = 5000

// commitFinder finds the commit that carries a checkpoint, reading the
// newest commits once, when first asked.
type commitFinder struct {
	repo *gitrepo.Repo
	byID map[checkpoint.ID]string
}

// find returns the commit carrying id ("" when none of the newest does).
func (c *commitFinder) find(ctx context.Context, id checkpoint.ID) string {
	if c.byID == nil {
		c.byID = map[checkpoint.ID]string{}
		// Newest first: a checkpoint a rewritten commit carries too is
		// found in the newest commit that carries it.
		out, err := c.repo.RunGit(ctx, "log", "--all", "-n", strconv.Itoa(recentCommits), "--format=%H%x00%B%x1e")
		if err != nil {
			return ""
		}
		for _, rec := range strings.Split(string(out), "\x1e") {
			h, msg, ok := strings.Cut(strings.TrimLeft(rec, "\n"), "\x00")
			if !ok {
				continue
			}
			for _, cid := range checkpoint.CheckpointsOf(msg) {
				if _, seen := c.byID[cid]; !seen {
					c.byID[cid] = h
				}
			}
		}
	}
	return c.byID[id]
}
