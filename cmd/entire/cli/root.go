package cli

import (
	"github.com/spf13/cobra"
)

// rootLong is the root command's help text.
func rootLong() string {
	return `Entire records what AI coding agents (` + agentTypeList("") + `) do in a git
repository: every agent turn becomes a checkpoint you can rewind to, and every
commit is linked to the conversation that produced it.

Get started with 'entire enable' in a git repository.
Documentation: https://docs.entire.io/introduction

Set the ACCESSIBLE environment variable to any value to use plain-text prompts
instead of interactive menus (for screen readers).

Exit status: 0 on success, 1 on any error (including invalid usage), 130 when
interrupted.`
}

// newRootCmd builds the whole command tree.
func newRootCmd(f *factory) *cobra.Command {
	root := &cobra.Command{
		Use:           "entire",
		Short:         "Entire CLI",
		Long:          rootLong(),
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	// `entire completion bash|zsh|fish|powershell` is listed in help (SPEC
	// 1.1 hides it: see docs/departures.md).
	root.CompletionOptions.HiddenDefaultCmd = false
	// `entire --version` prints what `entire version` does.
	root.Version = version
	root.SetVersionTemplate(versionText())
	root.SetHelpCommand(newHelpCmd())
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &usageError{err}
	})

	root.AddCommand(newVersionCmd(f))
	root.AddCommand(newEnableCmd(f, nil))
	root.AddCommand(newDisableCmd(f, nil))
	root.AddCommand(newStatusCmd(f, nil))
	root.AddCommand(newHooksCmd(f))
	root.AddCommand(newHideCmd(f, nil))
	root.AddCommand(newNoteCmd(f, nil))
	root.AddCommand(newMCPCmd(f, nil))
	root.AddCommand(newExplainCmd(f, nil))
	root.AddCommand(newResumeCmd(f, nil))
	root.AddCommand(newResetCmd(f, nil))
	root.AddCommand(newCleanCmd(f, nil))
	root.AddCommand(newDoctorCmd(f, nil))
	root.AddCommand(newRewindCmd(f, nil))
	root.AddCommand(newWebCmd(f, nil))
	root.AddCommand(newBlameCmd(f, nil))
	root.AddCommand(newWhyCmd(f, nil))
	root.AddCommand(newSearchCmd(f, nil))
	return root
}
