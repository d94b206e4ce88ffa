package cli

import (
	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/hooks"
	"github.com/entirecli/entire/hooks/githook"
	"github.com/spf13/cobra"
)

// newHooksCmd builds the hidden `entire hooks` tree: one subcommand per
// registered agent with its verbs (installed and no-op ones), and `git`
// with the git hooks. The exit status is the one each caller's protocol
// expects, so these commands exit directly instead of returning errors.
func newHooksCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:    "hooks",
		Short:  "Handle agent and git hook calls",
		Hidden: true,
	}
	env := func() hooks.Env {
		return hooks.Env{Stdin: f.IO.In, Stdout: f.IO.Out, Stderr: f.IO.ErrOut, Getenv: f.Getenv, Now: f.Now, OpenRepo: f.OpenRepo, CLIVersion: version,
			Confirmer: newTTYConfirmer(f.Getenv)}
	}
	for _, name := range agent.List() {
		a, err := agent.Get(name)
		if err != nil {
			continue
		}
		ac := &cobra.Command{Use: string(name), Short: "Handle " + string(a.Type()) + " hook calls", Hidden: true,
			// A verb without a subcommand (a newer or hand-edited hook
			// entry) reaches RunAgentHook, which logs it and exits 0.
			Args:               cobra.ArbitraryArgs,
			DisableFlagParsing: true,
			RunE: func(c *cobra.Command, args []string) error {
				verb := ""
				if len(args) > 0 {
					verb = args[0]
				}
				return exitWith(hooks.RunAgentHook(c.Context(), env(), name, verb))
			},
		}
		var verbs []string
		if hh, ok := a.(agent.HookHandler); ok {
			verbs = hh.GetHookNames()
		}
		if n, ok := a.(agent.NoOpHookVerbs); ok {
			// Older installs still call them; RunAgentHook answers at once.
			verbs = append(verbs, n.NoOpHookVerbs()...)
		}
		for _, verb := range verbs {
			ac.AddCommand(&cobra.Command{
				Use:    verb,
				Hidden: true,
				Args:   cobra.ArbitraryArgs,
				RunE: func(c *cobra.Command, _ []string) error {
					return exitWith(hooks.RunAgentHook(c.Context(), env(), name, verb))
				},
			})
		}
		cmd.AddCommand(ac)
	}
	gitCmd := &cobra.Command{Use: "git", Short: "Handle git hook calls", Hidden: true}
	for _, hook := range githook.Names() {
		gitCmd.AddCommand(&cobra.Command{
			Use:                hook,
			Hidden:             true,
			DisableFlagParsing: true,
			RunE: func(c *cobra.Command, args []string) error {
				return exitWith(hooks.RunGitHook(c.Context(), env(), hook, args))
			},
		})
	}
	cmd.AddCommand(gitCmd)
	cmd.AddCommand(&cobra.Command{
		Use:                "fsmonitor",
		Short:              "Answer git's fsmonitor hook for the hooks' status (run by git)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			return exitWith(hooks.RunFSMonitor(env(), args))
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:    "watch",
		Short:  "Watch a work tree for the hooks' status (started by a hook)",
		Hidden: true,
		Args:   cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return exitWith(hooks.RunWatch(c.Context(), env(), args))
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:    "finish-turn",
		Short:  "Finish a turn end in the background (started by a turn-end hook)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return exitWith(hooks.RunFinishTurn(c.Context(), env()))
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:    "condense",
		Short:  "Condense a commit's sessions in the background (started by post-commit)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return exitWith(hooks.RunCondense(c.Context(), env()))
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:    "compress-objects",
		Short:  "Deflate objects a hook stored undeflated (started by a hook)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return exitWith(hooks.RunCompressObjects(c.Context(), env()))
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:    "push-after",
		Short:  "Push the session logs once the user's first push has landed (started by pre-push)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return exitWith(hooks.RunPushAfter(c.Context(), env()))
		},
	})
	return cmd
}
