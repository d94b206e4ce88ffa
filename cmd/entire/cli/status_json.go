package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/push"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/redact"
	"github.com/entirecli/entire/internal/settings"
)

// statusJSON is what `entire status --json` prints.
type statusJSON struct {
	Enabled  bool   `json:"enabled"`
	Strategy string `json:"strategy"`
	// DefaultSettings: the checkout has no settings file and the hooks
	// use the defaults.
	DefaultSettings bool                  `json:"default_settings,omitempty"`
	Checkpoints     checkpointsStatusJSON `json:"checkpoints"`
	Sessions        []sessionStatusJSON   `json:"sessions"`
	// ExternalAgents are the external agent programs found (only when
	// the local settings allow them).
	ExternalAgents []externalAgentJSON `json:"external_agents,omitempty"`
}

// externalAgentJSON is one external agent program.
type externalAgentJSON struct {
	Name    string `json:"name"`
	Program string `json:"program"`
	Type    string `json:"type,omitempty"`
	// Skipped says why the program is not used ("" when it is).
	Skipped string `json:"skipped,omitempty"`
}

// checkpointsStatusJSON says where checkpoint data goes.
type checkpointsStatusJSON struct {
	// Destination is the remote's name or the repository
	// ("github:acme/app-checkpoints"); "" when nothing is pushed.
	Destination string `json:"destination"`
	// Kind is "remote", "repository" or "local".
	Kind string `json:"kind"`
	URL  string `json:"url,omitempty"`
	// Source is the setting that chose it ("strategy_options.
	// checkpoint_remote in .entire/settings.json") or "default".
	Source string `json:"source"`
	Pushed bool   `json:"pushed"`
	// LocalReason says why nothing is pushed; Fix how to change that.
	LocalReason string `json:"local_reason,omitempty"`
	Fix         string `json:"fix,omitempty"`
	Inherited   bool   `json:"inherited,omitempty"`
	// Unpushed counts the checkpoints not on the destination yet, as far
	// as this clone knows; UnpushedIDs names them.
	Unpushed    int      `json:"unpushed"`
	UnpushedIDs []string `json:"unpushed_ids,omitempty"`
	// Layout is where new checkpoints are written: "git-refs" (one ref
	// each) or "git-branch" (entire/checkpoints/v1), SPEC 10.1.
	Layout string `json:"layout"`
}

// sessionStatusJSON is one active session.
type sessionStatusJSON struct {
	ID          string `json:"session_id"`
	Agent       string `json:"agent,omitempty"`
	Worktree    string `json:"worktree,omitempty"`
	Phase       string `json:"phase"`
	StartedAt   string `json:"started_at"`
	FirstPrompt string `json:"first_prompt,omitempty"`
}

// printStatusJSON prints the status as one JSON object (first prompts
// redacted).
func printStatusJSON(ctx context.Context, f *factory, repo *gitrepo.Repo, s *settings.Settings, defaults bool) error {
	out := statusJSON{Enabled: s.Enabled, Strategy: s.StrategyName(), DefaultSettings: defaults, Sessions: []sessionStatusJSON{}}
	for _, e := range f.External {
		j := externalAgentJSON{Name: e.Name, Program: e.Path}
		if e.Agent != nil {
			j.Type = string(e.Agent.Type())
		} else if e.Err != nil {
			j.Skipped = e.Err.Error()
		}
		out.ExternalAgents = append(out.ExternalAgents, j)
	}
	t := resolvePushTarget(ctx, f, repo, s)
	cp := checkpointsStatusJSON{Source: t.Source, Pushed: t.Pushes(), Inherited: t.Inherited, Fix: t.Fix}
	switch {
	case !t.Pushes():
		cp.Kind = "local"
		cp.LocalReason = t.Local
		if t.Disabled {
			cp.LocalReason = "strategy_options.push_sessions is false"
		}
	case t.Repo != "":
		cp.Kind, cp.Destination, cp.URL = "repository", t.Repo, t.URL
	default:
		cp.Kind, cp.Destination, cp.URL = "remote", t.Remote, t.URL
	}
	if t.Pushes() {
		cp.Fix = ""
		if ids, err := push.Unpushed(repo, t.Destination); err == nil {
			cp.Unpushed = len(ids)
			for _, id := range ids {
				cp.UnpushedIDs = append(cp.UnpushedIDs, string(id))
			}
		}
	}
	layout, _ := checkpoint.LayoutOf(s.CheckpointsType())
	cp.Layout = layout.String()
	out.Checkpoints = cp
	if s.Enabled {
		store := session.NewStore(session.Options{GitCommonDir: repo.CommonDir, Now: f.Now})
		sums, _, err := store.Find(session.Query{ExcludeEnded: true})
		if err != nil {
			return err
		}
		red := redact.FromSettings(s, nil, nil).Text
		for _, sum := range sums {
			out.Sessions = append(out.Sessions, sessionStatusJSON{
				ID: sum.SessionID, Agent: sum.AgentType, Worktree: sum.WorktreePath, Phase: string(sum.Phase),
				StartedAt: sum.StartedAt.UTC().Format("2006-01-02T15:04:05Z"), FirstPrompt: red(uncut(sum.FirstPrompt)),
			})
		}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encode status: %w", err)
	}
	_, err = fmt.Fprintf(f.IO.Out, "%s\n", data)
	return err
}
