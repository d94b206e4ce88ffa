package cli

import (
	"context"
	"fmt"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/hide"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/redact"
	"github.com/entirecli/entire/internal/settings"
	"github.com/entirecli/entire/notes"
)

// storeRedactor returns the redaction applied to hides and notes before
// they become git objects: the same rules as the hooks, with the
// repository's settings patterns. A problem with the settings or the
// patterns is reported on f's error stream and the default rules are used.
func storeRedactor(f *factory, repo *gitrepo.Repo) func(string) string {
	s, err := settings.Load(repo.Root)
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "Warning: %v (default redaction rules used)\n", err)
		s = settings.Defaults()
	}
	return redact.FromSettings(s, func(err error) {
		fmt.Fprintf(f.IO.ErrOut, "Warning: redaction %v\n", err)
	}, nil).Text
}

// printRedactionProblems prints one warning line on f's error stream per
// expression of opts that does not compile (every redactor skips it):
// `entire status`, `entire enable` and `entire doctor --secrets` show
// what the hooks only log.
func printRedactionProblems(f *factory, opts redact.Options) {
	for _, e := range opts.Invalid() {
		fmt.Fprintf(f.IO.ErrOut, "Warning: redaction %v\n", e)
	}
}

// openHideStore returns the hide store of repo with redaction.
func openHideStore(f *factory, repo *gitrepo.Repo) *hide.Store {
	return hide.NewStore(repo, hide.WithClock(f.Now), hide.WithRedact(storeRedactor(f, repo)))
}

// openNotesStore returns the notes store of agentName ("" = notesAgent's
// default) in repo, with redaction.
func openNotesStore(ctx context.Context, f *factory, repo *gitrepo.Repo, agentName string) (*notes.Store, error) {
	return notes.NewStore(ctx, repo, notes.WithAgent(notesAgent(f, agentName)), notes.WithClock(f.Now),
		notes.WithRedact(storeRedactor(f, repo)))
}

// currentSession returns the most recently active session of the work
// tree of the working directory that has not ended (nil when none, or
// outside a repository).
func currentSession(f *factory) *session.Summary {
	return latestSession(f, true)
}

// latestSession returns the most recently active session of the work tree
// of the working directory, only among those not ended when live (nil when
// none, or outside a repository).
func latestSession(f *factory, live bool) *session.Summary {
	repo, err := f.OpenRepo()
	if err != nil {
		return nil
	}
	store := session.NewStore(session.Options{GitCommonDir: repo.CommonDir, Now: f.Now})
	sums, _, err := store.Find(session.Query{WorktreePath: repo.Root, ExcludeEnded: live})
	if err != nil {
		return nil
	}
	var best *session.Summary
	last := func(s *session.Summary) int64 {
		if s.LastInteractionTime != nil {
			return s.LastInteractionTime.UnixNano()
		}
		return s.StartedAt.UnixNano()
	}
	for i := range sums {
		if best == nil || last(&sums[i]) >= last(best) {
			best = &sums[i]
		}
	}
	return best
}

// notesAgent returns the agent namespace to use: the flag, else the agent
// of the current session (currentSession), else that of the work tree's
// latest session, ended or not (a Gemini user looking at notes after the
// session), else notes.DefaultAgent.
func notesAgent(f *factory, flag string) string {
	if flag != "" {
		return flag
	}
	for _, live := range []bool{true, false} {
		if s := latestSession(f, live); s != nil && s.AgentType != "" {
			if a, err := agent.GetByAgentType(agent.AgentType(s.AgentType)); err == nil {
				return string(a.Name())
			}
		}
	}
	return notes.DefaultAgent
}
