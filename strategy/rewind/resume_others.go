package rewind

import (
	"context"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/go-git/go-git/v5/plumbing"
)

// olderSessions returns the sessions of the checkpoints carried
// (checkpoint.CheckpointsOf) by the commits resume searches on the branch
// (see branchLog), other than those of commit found and the restored
// ones, newest first; each session once, with the newest commit that
// carries it. Checkpoints not in the store are left out.
func (r *resumer) olderSessions(ctx context.Context, tip plumbing.Hash, found string, plans []restorePlan) []OtherSession {
	restored := map[string]bool{}
	for _, p := range plans {
		restored[p.session.Metadata.SessionID] = true
	}
	out, err := r.branchLog(ctx, tip, "%H%x1f%B%x1e")
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var others []OtherSession
	for _, rec := range strings.Split(string(out), "\x1e") {
		fields := strings.SplitN(strings.TrimLeft(rec, "\n"), "\x1f", 2)
		if len(fields) != 2 || fields[0] == found {
			continue
		}
		for _, id := range checkpoint.CheckpointsOf(fields[1]) {
			cp, err := r.store.Read(id)
			if err != nil {
				continue
			}
			var overlaps []string
			for _, s := range cp.Sessions {
				if restored[s.Metadata.SessionID] {
					overlaps = append(overlaps, s.Metadata.SessionID)
				}
			}
			for _, s := range cp.Sessions {
				sid := s.Metadata.SessionID
				if session.ValidateID(sid) != nil || restored[sid] || seen[sid] {
					continue
				}
				seen[sid] = true
				o := OtherSession{SessionID: sid, Commit: fields[0], Overlaps: overlaps}
				if pr := s.Prompts(); len(pr) > 0 {
					o.Prompt = pr[len(pr)-1]
				}
				others = append(others, o)
			}
		}
	}
	return others
}
