package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/explain"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/go-git/go-git/v5/plumbing"
)

// otherSession is a session of an older checkpoint of the resumed branch
// that resume did not restore.
type otherSession struct {
	id     string
	prompt string
	commit string // the commit carrying its newest checkpoint
	// overlaps are restored sessions that the same checkpoint holds an
	// older transcript of.
	overlaps []string
}

// printOtherSessions follows the resume commands when the branch's older
// checkpoints hold sessions that resume did not restore (it restores the
// checkpoint of one commit, found): it says which commit's sessions were
// restored and prints, per other session, the rewind that restores it.
func printOtherSessions(ctx context.Context, f *factory, repo *gitrepo.Repo, store *checkpoint.Store, tip plumbing.Hash, b, found string, plans []restorePlan) {
	restored := map[string]bool{}
	for _, p := range plans {
		restored[p.session.Metadata.SessionID] = true
	}
	others := olderSessions(ctx, repo, store, tip, b, found, restored)
	if len(others) == 0 {
		return
	}
	w := f.IO.ErrOut
	fmt.Fprintf(w, "Restored the sessions of the latest checkpoint (commit %s).\n", found[:min(7, len(found))])
	if len(others) == 1 {
		fmt.Fprintf(w, "1 older session on '%s' was not restored; to restore it, run:\n", iostreams.Escape(b))
	} else {
		fmt.Fprintf(w, "%d older sessions on '%s' were not restored; to restore one, run:\n", len(others), iostreams.Escape(b))
	}
	for _, o := range others {
		line := "  entire rewind --to " + o.commit[:7] + " --logs-only  # " + o.id
		if o.prompt != "" {
			line += ": " + explain.Truncate(o.prompt, 60)
		}
		if len(o.overlaps) > 0 {
			line += " (also writes back the older transcript of " + strings.Join(o.overlaps, ", ") + "; `entire rewind --undo` returns)"
		}
		fmt.Fprintln(w, iostreams.Escape(line)) // session IDs and prompts of a teammate's checkpoints
	}
}

// olderSessions returns the sessions of the checkpoints carried
// (checkpoint.CheckpointsOf) by the commits resume searches on branch b
// (first parents from tip, at most resumeLimit commits, down to the
// default branch, as findResumeCheckpoint walks and reads them), other
// than commit found's and the restored ones, newest first;
// each session once, with the newest commit that carries it. Checkpoints
// not in the store are left out.
func olderSessions(ctx context.Context, repo *gitrepo.Repo, store *checkpoint.Store, tip plumbing.Hash, b, found string, restored map[string]bool) []otherSession {
	args := []string{"log", "--first-parent", "-n", strconv.Itoa(resumeLimit), "--format=%H%x1f%B%x1e", tip.String()}
	if def := defaultBranch(repo); def != "" && def != b && def != "origin/"+b {
		if _, err := repo.RunGit(ctx, "merge-base", "--is-ancestor", tip.String(), def); err != nil {
			args = append(args, "--not", def)
		}
	}
	out, err := repo.RunGit(ctx, args...)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var others []otherSession
	for _, rec := range strings.Split(string(out), "\x1e") {
		fields := strings.SplitN(strings.TrimLeft(rec, "\n"), "\x1f", 2)
		if len(fields) != 2 || fields[0] == found {
			continue
		}
		for _, id := range checkpoint.CheckpointsOf(fields[1]) {
			cp, err := store.Read(id)
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
				o := otherSession{id: sid, commit: fields[0], overlaps: overlaps}
				if pr := s.Prompts(); len(pr) > 0 {
					o.prompt = pr[len(pr)-1]
				}
				others = append(others, o)
			}
		}
	}
	return others
}
