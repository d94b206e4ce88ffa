package cli

import (
	"context"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// searchOptions are the flags of `entire search`.
type searchOptions struct {
	f                    *factory
	Branch, Agent, Since string
	Limit                int
	JSON                 bool
	Query                string
}

func newSearchCmd(f *factory, runF func(context.Context, *searchOptions) error) *cobra.Command {
	opts := &searchOptions{f: f}
	cmd := &cobra.Command{
		Use:   "search <query>",
		Short: "Search the prompts, answers and tool calls of every checkpoint",
		Long: `Search, on this machine, the prompts, the assistant's messages and the tool
calls of every checkpoint in the repository (teammates' too, once
fetched), ranked, each hit with its checkpoint, commit, session, turn and
a snippet. The index lives under the git directory and is brought up to
date with the checkpoints it has not seen before each search (and after
each commit, in the background, once it exists). Secrets are redacted
before anything is indexed. The search runs in the entire-web program,
installed beside entire.`,
		Example: `  entire search "flaky test"
  entire search --since 2026-11-01 retry backoff
  entire search --json --branch main migration`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 || strings.TrimSpace(strings.Join(args, " ")) == "" {
				return usageErrorf("expected a query")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Limit < 1 {
				return usageErrorf("--limit must be at least 1")
			}
			opts.Query = strings.Join(args, " ")
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSearch(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Branch, "branch", "", "only checkpoints made on this branch")
	fl.StringVar(&opts.Agent, "agent", "", "only sessions of this agent (its name as entire enable --agent takes it)")
	fl.StringVar(&opts.Since, "since", "", "only checkpoints made since this date (YYYY-MM-DD, RFC 3339, or a duration like 72h)")
	fl.IntVar(&opts.Limit, "limit", 20, "at most this many hits")
	fl.BoolVar(&opts.JSON, "json", false, "print one JSON object per hit")
	return cmd
}

// runSearch runs entire-web's search with the flags.
func runSearch(ctx context.Context, opts *searchOptions) error {
	args := []string{"search", "--branch", opts.Branch, "--agent", opts.Agent, "--since", opts.Since, "--limit", strconv.Itoa(opts.Limit)}
	if opts.JSON {
		args = append(args, "--json")
	}
	args = append(args, "--", opts.Query)
	return runWebProgram(ctx, opts.f, args, false)
}
