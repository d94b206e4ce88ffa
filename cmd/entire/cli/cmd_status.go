package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/external"
	"github.com/entirecli/entire/checkpoint/push"
	"github.com/entirecli/entire/hooks"

	"github.com/spf13/cobra"

	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/humantime"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/internal/logging"
	"github.com/entirecli/entire/internal/redact"
	"github.com/entirecli/entire/internal/settings"
)

// statusOptions holds the dependencies and flag values of `entire status`.
type statusOptions struct {
	f *factory

	Detailed bool // --detailed: one line per settings file
	JSON     bool // --json: one JSON object on stdout
}

func newStatusCmd(f *factory, runF func(context.Context, *statusOptions) error) *cobra.Command {
	opts := &statusOptions{f: f}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show whether Entire is enabled and the active sessions",
		Long: `Show whether Entire is enabled in this repository and with which strategy,
where checkpoints are pushed, and the agent sessions that have not ended,
grouped by worktree, with the hook failures of each since its last
successful hook and the log file to read about them.

A checkout without settings files (a linked worktree of a commit from
before ` + "`entire enable`" + `) in a repository with Entire's hooks shows what
the hooks do there: enabled, with the default settings.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runStatus(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Detailed, "detailed", false, "show the settings of each settings file")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the status as one JSON object")
	return cmd
}

// runStatus prints the status of the repository of the working directory.
func runStatus(ctx context.Context, opts *statusOptions) error {
	f := opts.f
	out := f.IO.Out
	repo, err := f.OpenRepo()
	if errors.Is(err, errNotRepository) {
		// Exit 1 like every error (SPEC 1.5 exits 0: see docs/departures.md).
		fmt.Fprintln(out, "✕ not a git repository")
		return silentError(err)
	}
	if err != nil {
		return err
	}
	// A checkout without settings files (a linked worktree of an older
	// commit) is still one the hooks act in when the repository has
	// entire's hooks: they then use the defaults (settings.Enabled), and
	// status says what they do.
	defaults := false
	if !settings.Exists(repo.Root) {
		if st := inspectSetup(repo); st.GitHooks == 0 && len(st.Agents) == 0 {
			fmt.Fprintln(out, "○ not set up (run `entire enable` to get started)")
			return nil
		}
		defaults = true
	}
	s, err := settings.Load(repo.Root)
	if err != nil {
		return fmt.Errorf("%w (fix or remove the file; meanwhile the hooks use the defaults and keep checkpoint data local)", err)
	}
	if opts.JSON {
		return printStatusJSON(ctx, f, repo, s, defaults)
	}
	printRedactionProblems(f, redact.SettingsOptions(s))
	fmt.Fprintln(out, enabledLabel(s))
	if defaults {
		fmt.Fprintf(out, "No settings in this checkout (%s/settings.json): the hooks use the defaults\n", settings.Dir)
	}
	if opts.Detailed {
		for _, file := range []struct{ label, path string }{
			{"Project", settings.ProjectPath(repo.Root)},
			{"Local", settings.LocalPath(repo.Root)},
		} {
			fs, err := settings.LoadFile(file.path)
			if err != nil {
				continue // missing (the merged load above already validated both)
			}
			fmt.Fprintf(out, "%s, %s (%s)\n", file.label, enabledWord(fs.Enabled), fs.StrategyName())
		}
	}
	target := resolvePushTarget(ctx, f, repo, s)
	fmt.Fprintln(out, target.statusLine())
	if target.Pushes() {
		// As far as this clone knows (the last fetch or push): a push that
		// ran out of retries left these for the next one.
		if ids, err := push.Unpushed(repo, target.Destination); err == nil {
			if line := push.DescribeUnpushed(ids, target.Name()); line != "" {
				fmt.Fprintln(out, "  "+line)
			}
		}
	}
	printExternalAgents(out, f.External)
	if !s.Enabled {
		return nil
	}
	printUntrustedHooks(out, repo)
	store := session.NewStore(session.Options{GitCommonDir: repo.CommonDir, Now: f.Now})
	sums, corrupt, err := store.Find(session.Query{ExcludeEnded: true})
	if err != nil {
		return err
	}
	if len(corrupt) > 0 {
		fmt.Fprintf(f.IO.ErrOut, "Warning: skipped %d unreadable session state files (`entire doctor` lists them)\n", len(corrupt))
	}
	if n, err := store.SetAsideCount(); err == nil && n > 0 {
		fmt.Fprintf(f.IO.ErrOut, "Warning: %d unreadable session state file(s) set aside by the hooks (`entire doctor` lists them)\n", n)
	}
	faults := func(id string) session.Faults {
		fl, _ := store.Faults(id)
		return fl
	}
	printActiveSessions(ctx, out, sums, f.Now(), redact.FromSettings(s, nil, nil).Text, faults)
	return nil
}

// enabledLabel is "Enabled (<strategy>)" or "Disabled (<strategy>)".
func enabledLabel(s *settings.Settings) string {
	w := enabledWord(s.Enabled)
	return fmt.Sprintf("%s%s (%s)", strings.ToUpper(w[:1]), w[1:], s.StrategyName())
}

func enabledWord(enabled bool) string {
	if enabled {
		return "enabled"
	}
	return "disabled"
}

// unknownWorktree is the group header of sessions without worktree_path.
const unknownWorktree = "(unknown)"

// printActiveSessions prints the sessions grouped by worktree, sorted by
// path, each group headed by the path and its current branch, with their
// first prompts redacted by redact and the hook failures faults reports
// since their last successful hook. Nothing is printed when sums is empty.
func printActiveSessions(ctx context.Context, w io.Writer, sums []session.Summary, now time.Time, redact func(string) string, faults func(id string) session.Faults) {
	if len(sums) == 0 {
		return
	}
	groups := map[string][]session.Summary{}
	for _, s := range sums {
		key := s.WorktreePath
		if key == "" {
			key = unknownWorktree
		}
		groups[key] = append(groups[key], s)
	}
	paths := make([]string, 0, len(groups))
	for p := range groups {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	fmt.Fprintln(w, "\nActive Sessions:")
	for _, p := range paths {
		header := p
		if p != unknownWorktree {
			if b := worktreeBranch(ctx, p); b != "" {
				header = fmt.Sprintf("%s (%s)", p, b)
			}
		}
		fmt.Fprintf(w, "  %s\n", iostreams.Escape(header))
		for _, s := range groups[p] {
			fmt.Fprintf(w, "    %s\n", iostreams.Escape(sessionLine(s, now)))
			if prompt := promptPreview(redact(uncut(s.FirstPrompt)), 60); prompt != "" {
				fmt.Fprintf(w, "      \"%s\"\n", iostreams.Escape(prompt))
			}
			if fl := faults(s.SessionID); fl.Count > 0 {
				printFaults(w, s, fl, now, redact)
			}
		}
	}
}

// printFaults prints a session's hook failures since its last successful
// hook, the last message redacted and escaped, and the log to read.
func printFaults(w io.Writer, s session.Summary, fl session.Faults, now time.Time, redact func(string) string) {
	noun := "failure"
	if fl.Count > 1 {
		noun = "failures"
	}
	msg := promptPreview(redact(fl.LastMessage), 200)
	fmt.Fprintf(w, "      ✕ %d hook %s since the last successful hook (last: %s, %s): %s\n",
		fl.Count, noun, iostreams.Escape(fl.LastHook), humantime.Ago(fl.LastAt, now), iostreams.Escape(msg))
	if s.WorktreePath != "" {
		fmt.Fprintf(w, "        log: %s\n", iostreams.Escape(filepath.Join(s.WorktreePath, logging.LogDir, logging.LogFile)))
	}
}

// sessionLine is "[<agent>] <id7> started <ago>[, active <ago>]".
func sessionLine(s session.Summary, now time.Time) string {
	agentType := s.AgentType
	if agentType == "" {
		agentType = "Agent"
	}
	id := s.SessionID
	if r := []rune(id); len(r) > 7 {
		id = string(r[:7])
	}
	line := fmt.Sprintf("[%s] %s started %s", agentType, id, humantime.Ago(s.StartedAt, now))
	if s.LastInteractionTime != nil && s.LastInteractionTime.Sub(s.StartedAt) > time.Minute {
		line += ", active " + humantime.Ago(*s.LastInteractionTime, now)
	}
	return line
}

// uncut drops the last word of a first prompt that the session state kept
// cut (it then ends in "..."): a secret cut in two is no longer recognised
// by the redaction, so its remains must not be shown.
func uncut(prompt string) string {
	if !strings.HasSuffix(prompt, "...") {
		return prompt
	}
	i := strings.LastIndexAny(prompt, " \t\n")
	if i < 0 {
		return ""
	}
	return prompt[:i] + "..."
}

// promptPreview returns prompt on one line, cut to max runes with "..."
// appended when cut.
func promptPreview(prompt string, max int) string {
	prompt = strings.Join(strings.Fields(prompt), " ")
	r := []rune(prompt)
	if len(r) <= max {
		return prompt
	}
	return strings.TrimSpace(string(r[:max])) + "..."
}

// worktreeBranch returns the branch checked out in the worktree at path
// ("HEAD" when detached), or "" when git cannot tell (the worktree is gone).
func worktreeBranch(ctx context.Context, path string) string {
	if !filepath.IsAbs(path) {
		return ""
	}
	outB, err := gitrepo.Runner{Dir: path}.Run(ctx, "rev-parse", "--abbrev-ref", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(outB))
}

// printUntrustedHooks names each agent with a trust gate whose installed
// hooks have not run since enable (hooks.UntrustedHooks), and each agent
// whose plugin has not (hooks.PluginsNotRun), with what to do.
func printUntrustedHooks(out io.Writer, repo *gitrepo.Repo) {
	untrusted := hooks.UntrustedHooks(repo)
	names := make([]string, 0, len(untrusted))
	for n := range untrusted {
		names = append(names, string(n))
	}
	slices.Sort(names)
	for _, n := range names {
		a, err := agent.Get(agent.AgentName(n))
		if err != nil {
			continue
		}
		fmt.Fprintf(out, "! %s: hooks installed but never ran: trust them in %s. %s\n", a.Type(), a.Type(), untrusted[agent.AgentName(n)])
	}
	notRun := hooks.PluginsNotRun(repo)
	names = names[:0]
	for n := range notRun {
		names = append(names, string(n))
	}
	slices.Sort(names)
	for _, n := range names {
		a, err := agent.Get(agent.AgentName(n))
		if err != nil {
			continue
		}
		fmt.Fprintf(out, "! %s: plugin installed but not run yet: %s\n", a.Type(), notRun[agent.AgentName(n)])
	}
}

// printExternalAgents lists the external agent programs found, and why
// a skipped one is not used, one line each.
func printExternalAgents(out io.Writer, found []external.Found) {
	for _, e := range found {
		switch {
		case e.Agent != nil:
			fmt.Fprintf(out, "External agent %s: %s (%s)\n", e.Name, e.Agent.Type(), e.Path)
		case e.Err != nil:
			fmt.Fprintf(out, "! External agent %s skipped: %s\n", e.Name, iostreams.Escape(e.Err.Error()))
		}
	}
}
