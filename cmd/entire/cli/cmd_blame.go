package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/explain"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/strategy"
	"github.com/spf13/cobra"
)

type blameOptions struct {
	f         *factory
	Lines     string
	JSON      bool
	NoPager   bool
	ExportAI  string
	Path, Rev string
}

func newBlameCmd(f *factory, runF func(context.Context, *blameOptions) error) *cobra.Command {
	opts := &blameOptions{f: f}
	cmd := &cobra.Command{
		Use:   "blame <file> [<rev>]",
		Short: "Show which agent turn, or the person, wrote each line of a file",
		Long: `Show, for each line of a file, who wrote it: an agent (with its session,
the turn within the session, the checkpoint and the first line of the
turn's prompt), the person, both (the person rewrote an agent's line:
mixed), or unknown (the commit's checkpoint records no lines). Lines not
committed yet are attributed from the active sessions' turns.

Checkpoints the repository lacks (a fresh clone) are fetched from the
checkpoint destination. Rebased, amended and squash-merged commits are
followed through the Entire-Checkpoint trailers they carry.
`,
		Example: `  entire blame main.go
  entire blame -L 10,20 main.go HEAD~2
  entire blame --json main.go
  entire blame --export-git-ai main~10..main`,
		Args: func(_ *cobra.Command, args []string) error {
			if opts.ExportAI != "" {
				if len(args) > 0 {
					return usageErrorf("--export-git-ai takes a range of commits, not a file")
				}
				return nil
			}
			if len(args) < 1 || len(args) > 2 {
				return usageErrorf("expected a file and at most one revision")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				opts.Path = args[0]
			}
			if len(args) > 1 {
				opts.Rev = args[1]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			if opts.ExportAI != "" {
				return runExportGitAI(cmd.Context(), opts)
			}
			return runBlame(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Lines, "lines", "L", "", "only lines a,b (1-based, inclusive)")
	fl.BoolVar(&opts.JSON, "json", false, "print one JSON object per line")
	fl.BoolVar(&opts.NoPager, "no-pager", false, "do not page the output")
	fl.StringVar(&opts.ExportAI, "export-git-ai", "", "write the attribution of a range of commits (a..b, or one commit) as git-ai notes in refs/notes/ai")
	return cmd
}

// parseLineRange reads -L a,b (or a single line a).
func parseLineRange(s string) (int, int, error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		b = a
	}
	from, err1 := strconv.Atoi(strings.TrimSpace(a))
	to, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || from < 1 || to < from {
		return 0, 0, usageErrorf("invalid -L %q: expected a,b with 1 <= a <= b", s)
	}
	return from, to, nil
}

// repoPath returns the path of a file named on the command line relative
// to the repository's root, refusing one outside it.
func repoPath(f *factory, repo *gitrepo.Repo, name string) (string, error) {
	if strings.HasPrefix(name, "-") {
		return "", usageErrorf("invalid file %q", name)
	}
	p := name
	if !filepath.IsAbs(p) {
		wd, err := f.Getwd()
		if err != nil {
			return "", err
		}
		p = filepath.Join(wd, p)
	}
	root, err := filepath.EvalSymlinks(repo.Root)
	if err != nil {
		root = repo.Root
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		p = filepath.Join(dir, filepath.Base(p))
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", usageErrorf("%s is outside the repository", name)
	}
	return filepath.ToSlash(rel), nil
}

// newBlamer returns the blamer of repo: checkpoints from the store (and
// fetched from the destination when absent), the work tree's lines from
// the active sessions.
func newBlamer(ctx context.Context, f *factory, repo *gitrepo.Repo) *explain.Blamer {
	store, dest := metadataStore(ctx, f, repo)
	b := &explain.Blamer{Repo: repo, Store: store}
	b.Fetch = func(ids []checkpoint.ID) { fetchCheckpoints(ctx, f, repo, store, dest, ids) }
	b.WorkTree = func(path, text string) []*explain.Claim {
		env, log := openStrategyEnv(f, repo, "blame")
		defer log.Close()
		claims := strategy.NewManualCommit(env).WorkTreeLines(path, text)
		out := make([]*explain.Claim, len(claims))
		for i, c := range claims {
			if c != nil {
				out[i] = &explain.Claim{SessionID: c.SessionID, Agent: c.Agent, Prompt: c.Prompt, Step: c.Step, Turn: c.Turn, Mixed: c.Mixed, Time: c.Time}
			}
		}
		return out
	}
	return b
}

// runBlame prints who wrote each line of a file.
func runBlame(ctx context.Context, opts *blameOptions) error {
	f := opts.f
	from, to, err := parseLineRange(opts.Lines)
	if err != nil {
		return err
	}
	if strings.HasPrefix(opts.Rev, "-") {
		return usageErrorf("invalid revision %q", opts.Rev)
	}
	repo, err := f.OpenRepo()
	if err != nil {
		return err
	}
	path, err := repoPath(f, repo, opts.Path)
	if err != nil {
		return err
	}
	lines, err := newBlamer(ctx, f, repo).Blame(ctx, path, opts.Rev, from, to)
	if err != nil {
		return fmt.Errorf("blame %s: %w", opts.Path, err)
	}
	if opts.JSON {
		out := bufio.NewWriterSize(f.IO.Out, 64<<10)
		enc := json.NewEncoder(out)
		for _, l := range lines {
			if err := enc.Encode(l); err != nil {
				return err
			}
		}
		return out.Flush()
	}
	var buf bytes.Buffer
	explain.RenderBlame(&buf, lines)
	return page(f, opts.NoPager, []byte(iostreams.Escape(buf.String())))
}
