package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/entirecli/entire/explain"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/spf13/cobra"
)

type whyOptions struct {
	f       *factory
	JSON    bool
	NoPager bool
	Target  string
}

func newWhyCmd(f *factory, runF func(context.Context, *whyOptions) error) *cobra.Command {
	opts := &whyOptions{f: f}
	cmd := &cobra.Command{
		Use:   "why <file>:<line>",
		Short: "Show the prompt, answer, tool call and diff that wrote a line",
		Long: `Show the story of one line of a file in the work tree: who wrote it, the
prompt of the turn that did and the assistant's answer, the tool call
that wrote the file with the turn's diff of it, the session, checkpoint
and commit, and the commands to resume the session or rewind there.`,
		Example: `  entire why main.go:42`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("expected <file>:<line>")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Target = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runWhy(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the story as one JSON object")
	cmd.Flags().BoolVar(&opts.NoPager, "no-pager", false, "do not page the output")
	return cmd
}

// parseFileLine reads <file>:<line>.
func parseFileLine(s string) (string, int, error) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return "", 0, usageErrorf("expected <file>:<line>, got %q", s)
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n < 1 {
		return "", 0, usageErrorf("invalid line number in %q", s)
	}
	return s[:i], n, nil
}

// runWhy prints the story of a line.
func runWhy(ctx context.Context, opts *whyOptions) error {
	f := opts.f
	name, n, err := parseFileLine(opts.Target)
	if err != nil {
		return err
	}
	repo, err := f.OpenRepo()
	if err != nil {
		return err
	}
	path, err := repoPath(f, repo, name)
	if err != nil {
		return err
	}
	b := newBlamer(ctx, f, repo)
	l := &explain.Loader{Repo: repo, Store: b.Store, DefaultBranch: repo.DefaultBranch()}
	v, err := l.Why(ctx, b, path, n)
	if err != nil {
		return err
	}
	if opts.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	var buf bytes.Buffer
	explain.RenderWhy(&buf, v)
	return page(f, opts.NoPager, []byte(iostreams.Escape(buf.String())))
}
