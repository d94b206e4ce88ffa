package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// newHelpCmd replaces cobra's help command with one that also prints the
// whole visible command tree with the hidden -t/--tree flag.
func newHelpCmd() *cobra.Command {
	var tree bool
	cmd := &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			if tree {
				fmt.Fprintln(cmd.OutOrStdout(), root.Name())
				printTree(cmd.OutOrStdout(), root, "")
				return nil
			}
			target, _, err := root.Find(args)
			if err != nil || target == nil {
				return usageErrorf("unknown help topic %q", args)
			}
			return target.Help()
		},
	}
	cmd.Flags().BoolVarP(&tree, "tree", "t", false, "print the command tree")
	_ = cmd.Flags().MarkHidden("tree")
	return cmd
}

// printTree prints the visible subcommands of c, excluding help.
func printTree(w io.Writer, c *cobra.Command, prefix string) {
	var visible []*cobra.Command
	for _, sub := range c.Commands() {
		if sub.Hidden || sub.Name() == "help" || !sub.IsAvailableCommand() {
			continue
		}
		visible = append(visible, sub)
	}
	for i, sub := range visible {
		branch, next := "├── ", "│   "
		if i == len(visible)-1 {
			branch, next = "└── ", "    "
		}
		fmt.Fprintf(w, "%s%s%s - %s\n", prefix, branch, sub.Name(), sub.Short)
		printTree(w, sub, prefix+next)
	}
}
