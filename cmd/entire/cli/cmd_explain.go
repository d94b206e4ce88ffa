package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/push"
	"github.com/entirecli/entire/explain"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/renderrefs"
	"github.com/entirecli/entire/strategy"
	"github.com/entirecli/entire/strategy/references"
	"github.com/go-git/go-git/v5/plumbing"
)

// explainOptions holds the dependencies and flag values of `entire explain`.
type explainOptions struct {
	f *factory

	Session       string // --session: list only this session's checkpoints
	Commit        string // --commit: explain the checkpoint a commit links to
	Checkpoint    string // -c/--checkpoint: ID or prefix (or shadow commit)
	NoPager       bool   // --no-pager
	Short         bool   // -s/--short
	Full          bool   // --full
	RawTranscript bool   // --raw-transcript
	Generate      bool   // --generate: AI summary (SPEC 7.2)
	Force         bool   // --force: with --generate, replace a summary
	SearchAll     bool   // --search-all: linked commits in every branch
}

func newExplainCmd(f *factory, runF func(context.Context, *explainOptions) error) *cobra.Command {
	opts := &explainOptions{f: f}
	cmd := &cobra.Command{
		Use:   "explain",
		Short: "Explain the agent sessions behind commits and checkpoints",
		Long: `Show what the agent did: without flags, the checkpoints of the current
branch; with --commit or --checkpoint, one checkpoint: its session, prompts,
token usage, attribution, linked commits, files touched and a readable
transcript ([User], [Assistant], [Tool] lines).

--generate asks the agent's own CLI for a summary and
stores it in the checkpoint.`,
		Example: `  entire explain
  entire explain --commit HEAD
  entire explain --checkpoint a3b2c4 --short
  entire explain --checkpoint a3b2c4d5e6f7 --raw-transcript > session.jsonl`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErrorf("unexpected argument %q. Hint: use --checkpoint, --session, or --commit to choose what to explain", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runExplain(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Session, "session", "", "list the checkpoints of sessions whose ID starts with this")
	fl.StringVar(&opts.Commit, "commit", "", "explain the checkpoint linked from this commit (any git revision)")
	fl.StringVarP(&opts.Checkpoint, "checkpoint", "c", "", "explain this checkpoint (ID or unique prefix, or a temporary checkpoint's commit)")
	fl.BoolVar(&opts.NoPager, "no-pager", false, "do not page the output")
	fl.BoolVarP(&opts.Short, "short", "s", false, "show the summary header only")
	fl.BoolVar(&opts.Full, "full", false, "show the whole session transcript, not only this checkpoint's part")
	fl.BoolVar(&opts.RawTranscript, "raw-transcript", false, "write the stored transcript as it is (with --checkpoint)")
	fl.BoolVar(&opts.Generate, "generate", false, "generate and store an AI summary (with --checkpoint)")
	fl.BoolVar(&opts.Force, "force", false, "with --generate: replace an existing summary")
	fl.BoolVar(&opts.SearchAll, "search-all", false, "look for linked commits in all branches, without a depth limit")
	return cmd
}

// validate applies the flag rules of SPEC 1.9.
func (o *explainOptions) validate() error {
	targets := 0
	for _, set := range []bool{o.Session != "", o.Commit != "", o.Checkpoint != ""} {
		if set {
			targets++
		}
	}
	modes := 0
	for _, set := range []bool{o.Short, o.Full, o.RawTranscript} {
		if set {
			modes++
		}
	}
	switch {
	case targets > 1:
		return usageErrorf("cannot specify multiple of --session, --commit, --checkpoint")
	case o.Generate && o.Checkpoint == "":
		return usageErrorf("--generate requires --checkpoint")
	case o.Force && !o.Generate:
		return usageErrorf("--force requires --generate")
	case o.RawTranscript && o.Checkpoint == "":
		return usageErrorf("--raw-transcript requires --checkpoint")
	case modes > 1:
		return usageErrorf("--short, --full and --raw-transcript are mutually exclusive")
	case o.Generate && o.RawTranscript:
		return usageErrorf("--generate and --raw-transcript cannot be combined")
	}
	return nil
}

func (o *explainOptions) mode() explain.Mode {
	switch {
	case o.Short:
		return explain.ModeShort
	case o.Full:
		return explain.ModeFull
	}
	return explain.ModeDefault
}

// runExplain shows the list, a commit's checkpoint or a checkpoint.
func runExplain(ctx context.Context, opts *explainOptions) error {
	f := opts.f
	if ok, err := checkEnabled(f); err != nil || !ok {
		return err
	}
	repo, err := f.OpenRepo()
	if err != nil {
		return err
	}
	completePending(ctx, f, repo) // and the steps of turn ends still being written
	store, dest := metadataStore(ctx, f, repo)
	l := &explain.Loader{Repo: repo, Store: store, DefaultBranch: repo.DefaultBranch(), Remote: dest.FetchArg()}
	var buf bytes.Buffer
	switch {
	case opts.Commit != "":
		ids, err := commitCheckpoints(ctx, repo, opts.Commit)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			fmt.Fprintf(f.IO.Out, "No associated Entire checkpoint for %s.\n", opts.Commit)
			fmt.Fprintln(f.IO.Out, "The commit has no Entire-Checkpoint trailer: it was not made from an agent session recorded by Entire.")
			return nil
		}
		fetchCheckpoints(ctx, f, repo, store, dest, ids)
		if err := combinedAttribution(l, ids, &buf); err != nil {
			return err
		}
		if err := explainCheckpoints(ctx, opts, l, ids, &buf); err != nil {
			return err
		}
	case opts.Checkpoint != "":
		if id, err := checkpoint.ParseID(checkpoint.NormalizeID(opts.Checkpoint)); err == nil {
			fetchCheckpoints(ctx, f, repo, store, dest, []checkpoint.ID{id})
		}
		id, err := l.Resolve(opts.Checkpoint)
		if errors.Is(err, checkpoint.ErrNotFound) {
			return explainTemporary(opts, l, err)
		}
		if err != nil {
			return err
		}
		if opts.RawTranscript {
			return rawTranscript(opts, l, id)
		}
		if opts.Generate {
			return generateSummary(ctx, opts, l, repo, id)
		}
		if err := explainCheckpoint(ctx, opts, l, id, &buf); err != nil {
			return err
		}
	default:
		v, err := l.List(ctx, opts.Session)
		if err != nil {
			return err
		}
		if err := explain.RenderList(&buf, v, nil); err != nil {
			return err
		}
	}
	return pageEscaped(f, opts.NoPager, buf.String())
}

// fetchCheckpoints brings the checkpoints of ids that are not here from
// the checkpoint destination, each by its one ref (SPEC 10.3), bounded
// by strategy_options.push_timeout, and says so on stderr; one the
// destination does not have is named there. Failures are said, not
// errors: explain then says what it cannot read.
func fetchCheckpoints(ctx context.Context, f *factory, repo *gitrepo.Repo, store *checkpoint.Store, dest push.Destination, ids []checkpoint.ID) {
	var absent []checkpoint.ID
	for _, id := range ids {
		if !store.Exists(id) {
			absent = append(absent, id)
		}
	}
	if len(absent) == 0 || !dest.Fetches() {
		return
	}
	fmt.Fprintf(f.IO.ErrOut, "Fetching %d checkpoint(s) from %s...\n", len(absent), iostreams.Escape(dest.Name()))
	missing, err := push.FetchCheckpoints(ctx, repo, dest, absent, loadSettings(repo).PushTimeout())
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "Could not fetch them: %s\n", iostreams.Escape(err.Error()))
		return
	}
	for _, id := range missing {
		if !store.Exists(id) {
			fmt.Fprintf(f.IO.ErrOut, "%s has no checkpoint %s\n", iostreams.Escape(dest.Name()), id)
		}
	}
}

// commitCheckpoints resolves rev and returns every checkpoint its message
// carries: its own link and those a squash or rebase brought along
// (checkpoint.CheckpointsOf).
func commitCheckpoints(ctx context.Context, repo *gitrepo.Repo, rev string) ([]checkpoint.ID, error) {
	if strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("invalid revision %q", rev)
	}
	out, err := repo.RunGit(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("unknown commit %q: no such revision in this repository", rev)
	}
	c, err := repo.Git.CommitObject(plumbing.NewHash(strings.TrimSpace(string(out))))
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", rev, err)
	}
	return checkpoint.CheckpointsOf(c.Message), nil
}

// explainCheckpoints shows the checkpoints a commit carries one after the
// other, after a line that lists them when there are several. One that is
// not here is said in its place; it is an error only when none is.
func explainCheckpoints(ctx context.Context, opts *explainOptions, l *explain.Loader, ids []checkpoint.ID, w io.Writer) error {
	if len(ids) == 1 {
		return explainCheckpoint(ctx, opts, l, ids[0], w)
	}
	strs := make([]string, len(ids))
	for i, id := range ids {
		strs[i] = id.String()
	}
	fmt.Fprintf(w, "This commit carries %d checkpoints: %s\n", len(ids), strings.Join(strs, ", "))
	var firstErr error
	shown := 0
	for _, id := range ids {
		fmt.Fprintln(w)
		var buf bytes.Buffer
		if err := explainCheckpoint(ctx, opts, l, id, &buf); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			fmt.Fprintf(w, "Checkpoint: %s\n  %v\n", id, err)
			continue
		}
		shown++
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
	}
	if shown == 0 {
		return firstErr
	}
	return nil
}

// combinedAttribution writes, for a commit that carries several
// checkpoints (ids, as commitCheckpoints found them: a squash merge),
// their line attributions combined, each checkpoint counted once; nothing
// for a commit with one.
func combinedAttribution(l *explain.Loader, ids []checkpoint.ID, w io.Writer) error {
	if len(ids) < 2 {
		return nil
	}
	a, n, err := l.CommitAttribution(ids)
	if err != nil || n < 2 {
		return err
	}
	return explain.RenderCombinedAttribution(w, n, a)
}

func explainCheckpoint(ctx context.Context, opts *explainOptions, l *explain.Loader, id checkpoint.ID, w io.Writer) error {
	v, cp, err := l.Checkpoint(ctx, id, explain.ViewOptions{Mode: opts.mode(), SearchAll: opts.SearchAll})
	if errors.Is(err, checkpoint.ErrNotFound) {
		return fmt.Errorf("checkpoint %s is not on the %s branch (fetch it from the checkpoint remote, or check the ID)", id, checkpoint.MetadataBranch)
	}
	if err != nil {
		return err
	}
	if err := explain.RenderCheckpoint(w, v, opts.mode()); err != nil {
		return err
	}
	emitRef(opts.f, renderrefs.Reference{Type: references.TypeCheckpoint, ID: string(id), Intent: renderrefs.IntentReferenced,
		Preview: &renderrefs.Preview{Title: checkpointTitle(cp)}})
	if opts.mode() == explain.ModeShort {
		return nil
	}
	return writeSlotExtras(ctx, w, l.Repo, cp)
}

// recordsSubagents reports whether the agent labelled label records
// subagent conclusions: it has a subagent-stop hook. Unknown labels are
// taken to record them (nothing is said about them).
func recordsSubagents(label agent.AgentType) bool {
	a, err := agent.GetByAgentType(label)
	if err != nil {
		return true
	}
	hs, ok := a.(agent.HookSupport)
	return ok && slices.Contains(hs.GetSupportedHooks(), agent.HookSubagentStop)
}

// writeSlotExtras shows, per session, what the session's slot holds beyond
// its transcript: its subagent tasks with their conclusions, the entities
// its commands referenced, and the hides it made.
func writeSlotExtras(ctx context.Context, w io.Writer, repo *gitrepo.Repo, cp *checkpoint.Checkpoint) error {
	for _, sess := range cp.Sessions {
		var buf bytes.Buffer
		if err := explain.WriteTasks(ctx, &buf, repo, sess, explain.TaskOptions{}); err != nil {
			return err
		}
		hides, _ := strategy.SessionHideIDs(sess)
		if len(hides) > 0 {
			fmt.Fprintf(&buf, "Hides: %s (entire hide show <id>)\n", strings.Join(hides, ", "))
		}
		if buf.Len() == 0 && !recordsSubagents(sess.Metadata.Agent) {
			fmt.Fprintf(&buf, "Subagent conclusions: not recorded (%s has no subagent hooks).\n", sess.Metadata.Agent)
		}
		if buf.Len() == 0 {
			continue
		}
		if len(cp.Sessions) > 1 {
			fmt.Fprintf(w, "\nSession %s:\n", sess.Metadata.SessionID)
		} else {
			fmt.Fprintln(w)
		}
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// explainTemporary handles a --checkpoint value that names no committed
// checkpoint: a shadow commit, else the not-found error.
func explainTemporary(opts *explainOptions, l *explain.Loader, notFound error) error {
	c, err := l.Temporary(opts.Checkpoint)
	if err != nil {
		return fmt.Errorf("checkpoint not found: %s (no committed or temporary checkpoint has this ID; run `entire explain` to list them)", opts.Checkpoint)
	}
	switch {
	case opts.Generate:
		return errors.New("cannot generate a summary for a temporary checkpoint: commit the work first")
	case opts.RawTranscript:
		return errors.New("--raw-transcript needs a committed checkpoint; this is a temporary one")
	}
	v, err := l.TemporaryView(c, opts.mode())
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := explain.RenderCheckpoint(&buf, v, opts.mode()); err != nil {
		return err
	}
	return pageEscaped(opts.f, opts.NoPager, buf.String())
}

// pageEscaped pages a view of checkpoint data with iostreams.Escape
// applied: prompts, transcripts and summaries may come from someone else
// and must not drive the terminal.
func pageEscaped(f *factory, noPager bool, view string) error {
	return page(f, noPager, []byte(iostreams.Escape(view)))
}

// rawTranscript writes the stored transcript of the latest session, never
// paged, escaped when stdout is a terminal (a pipe gets the bytes).
func rawTranscript(opts *explainOptions, l *explain.Loader, id checkpoint.ID) error {
	cp, err := l.Store.Read(id)
	if err != nil {
		return err
	}
	data, err := cp.Sessions[len(cp.Sessions)-1].Transcript()
	if err != nil {
		return missingTranscript(l, cp.Sessions[len(cp.Sessions)-1], err)
	}
	if opts.f.IO.IsStdoutTTY() {
		data = []byte(iostreams.Escape(string(data)))
	}
	_, err = opts.f.IO.Out.Write(data)
	return err
}

// generateSummary runs the agent's CLI on the checkpoint's scope and stores
// the summary in its latest session.
func generateSummary(ctx context.Context, opts *explainOptions, l *explain.Loader, repo *gitrepo.Repo, id checkpoint.ID) error {
	f := opts.f
	cp, err := l.Store.Read(id)
	if err != nil {
		return err
	}
	s := cp.Sessions[len(cp.Sessions)-1]
	if s.Metadata.Summary != nil && !opts.Force {
		return fmt.Errorf("checkpoint %s already has a summary (use --force to replace it)", id)
	}
	content, err := s.Transcript()
	if err != nil {
		return fmt.Errorf("cannot summarize checkpoint %s: %w", id, missingTranscript(l, s, err))
	}
	entries, err := explain.ScopedTranscript(content, s.Metadata)
	if err != nil {
		return err
	}
	sum := &explain.Summarizer{LookPath: exec.LookPath, Run: runProgram, Environ: os.Environ(), TempDir: os.TempDir()}
	fmt.Fprintln(f.IO.ErrOut, "Generating summary...")
	summary, err := sum.Summarize(ctx, s.Metadata.Agent, entries, cp.Root.FilesTouched)
	var notInstalled *explain.AgentNotInstalledError
	if errors.As(err, &notInstalled) {
		if notInstalled.Program == "" {
			return fmt.Errorf("cannot generate a summary: no agent this entire knows writes summaries for checkpoints of %q", string(s.Metadata.Agent))
		}
		return fmt.Errorf("cannot generate a summary: the %s command is not installed (summaries are written by the agent's own CLI; install it and try again)", notInstalled.Program)
	}
	if err != nil {
		return err
	}
	// The summary is stored like the metadata the hooks write: redacted.
	summary = summary.Redacted(storeRedactor(f, repo))
	store, _ := metadataStore(ctx, f, repo)
	if err := explain.SaveSummary(ctx, store, id, s.Index, summary); err != nil {
		return err
	}
	fmt.Fprintln(f.IO.Out, "✓ Summary generated and saved")
	return nil
}

// missingTranscript turns the error of reading a session's transcript
// into one that names the fetch to run when its objects are not here.
func missingTranscript(l *explain.Loader, s *checkpoint.Session, err error) error {
	if missing := l.MissingObjects(s); len(missing) > 0 {
		return fmt.Errorf("the transcript of session %s is not in this repository (a partial clone?); fetch it with: %s", s.Metadata.SessionID, l.FetchCommand(missing))
	}
	return err
}

// runProgram is the explain.Runner of the real process.
func runProgram(ctx context.Context, name string, args []string, stdin []byte, dir string, env []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Dir = dir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// page writes out to stdout, through $PAGER (default less) when stdout is
// a terminal, paging is not disabled, and the text is taller than the
// terminal.
func page(f *factory, noPager bool, out []byte) error {
	if noPager || !f.IO.IsStdoutTTY() {
		_, err := f.IO.Out.Write(out)
		return err
	}
	file, ok := f.IO.Out.(*os.File)
	if !ok {
		_, err := f.IO.Out.Write(out)
		return err
	}
	_, height, err := term.GetSize(int(file.Fd()))
	if err != nil || bytes.Count(out, []byte("\n")) <= height-2 {
		_, err := f.IO.Out.Write(out)
		return err
	}
	pager := f.Getenv("PAGER")
	if pager == "" {
		pager = "less"
	}
	cmd := exec.Command("sh", "-c", pager)
	cmd.Stdin = bytes.NewReader(out)
	cmd.Stdout, cmd.Stderr = file, f.IO.ErrOut
	cmd.Env = os.Environ()
	if f.Getenv("LESS") == "" {
		cmd.Env = append(cmd.Env, "LESS=FRX") // quit when short, keep colors
	}
	if err := cmd.Run(); err != nil {
		_, werr := f.IO.Out.Write(out) // the pager failed: print plainly
		return werr
	}
	return nil
}

// checkpointTitle is a short title for a checkpoint: its first prompt.
func checkpointTitle(cp *checkpoint.Checkpoint) string {
	for _, s := range cp.Sessions {
		if p := s.Prompts(); len(p) > 0 {
			return explain.Truncate(p[0], 80)
		}
	}
	return "Checkpoint " + string(cp.ID)
}
