package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/external"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/hooks"
	"github.com/entirecli/entire/hooks/githook"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/internal/jsonedit"
	"github.com/entirecli/entire/internal/redact"
	"github.com/entirecli/entire/internal/settings"
)

// enableOptions holds the dependencies and flag values of `entire enable`.
type enableOptions struct {
	f *factory

	Agent    string // --agent
	AgentSet bool   // --agent was given (even empty)
	Strategy string // --strategy
	Force    bool   // --force
	Local    bool   // --local
	Project  bool   // --project
	// SkipPushSessions writes strategy_options.push_sessions=false.
	SkipPushSessions bool
	// CheckpointRemote (--checkpoint-remote provider:owner/name) writes
	// strategy_options.checkpoint_remote as Entire's object.
	CheckpointRemote string
	// Checkpoints (--checkpoints git-refs|git-branch) writes
	// checkpoints.primary.type, the checkpoint layout (SPEC 10.1).
	Checkpoints string
	// Telemetry false (--telemetry=false) writes telemetry=false. Nothing
	// is ever sent: this tool has no telemetry.
	Telemetry bool
	LocalDev  bool // --local-dev (hidden)
	// ConfigFlags is true when a flag that changes the configuration was
	// given; the interactive mode then never stops at "Already enabled".
	ConfigFlags bool
}

// enableMode is one of the three flows of SPEC 1.3.
type enableMode int

const (
	modeAgent       enableMode = iota // --agent <name>
	modeStrategy                      // --strategy without --agent
	modeInteractive                   // neither
)

func newEnableCmd(f *factory, runF func(context.Context, *enableOptions) error) *cobra.Command {
	opts := &enableOptions{f: f}
	cmd := &cobra.Command{
		Use:   "enable",
		Short: "Enable Entire in this repository",
		Long: `Install the agent hooks and git hooks that let Entire record agent sessions
in this repository, and write .entire/settings.json.

Without flags, Entire is set up for ` + string(agent.DefaultAgentType) + ` with the manual-commit strategy.
Use --agent to choose the agent, --strategy to choose the strategy.

Checkpoint metadata (the entire/checkpoints/v1 branch) is pushed with your
branches to the checkpoint remote (strategy_options.checkpoint_remote, default
origin) unless strategy_options.push_sessions is false (--skip-push-sessions).
--checkpoint-remote github:owner/name sends it to a repository of its own
instead, on the host and with the scheme of the remote you push.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fl := cmd.Flags()
			opts.AgentSet = fl.Changed("agent")
			for _, name := range []string{"force", "local", "project", "skip-push-sessions", "checkpoint-remote", "checkpoints", "telemetry", "local-dev"} {
				opts.ConfigFlags = opts.ConfigFlags || fl.Changed(name)
			}
			if opts.Local && opts.Project {
				return usageErrorf("cannot specify both --project and --local")
			}
			if fl.Changed("checkpoints") && !settings.CheckpointsKnown(opts.Checkpoints) {
				return usageErrorf("--checkpoints takes %s or %s", settings.CheckpointsGitRefs, settings.CheckpointsGitBranch)
			}
			if fl.Changed("checkpoint-remote") {
				if _, err := settings.ParseCheckpointRemoteFlag(opts.CheckpointRemote); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runEnable(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Agent, "agent", "", "agent to set up: "+agentNameList("or")+" (non-interactive)")
	fl.StringVar(&opts.Strategy, "strategy", "", "strategy: manual-commit or auto-commit")
	fl.BoolVarP(&opts.Force, "force", "f", false, "re-install the hooks even if they are present")
	fl.BoolVar(&opts.Local, "local", false, "write settings to .entire/settings.local.json")
	fl.BoolVar(&opts.Project, "project", false, "write settings to .entire/settings.json")
	fl.BoolVar(&opts.SkipPushSessions, "skip-push-sessions", false, "keep checkpoint metadata local (strategy_options.push_sessions=false)")
	fl.StringVar(&opts.CheckpointRemote, "checkpoint-remote", "", "push checkpoint data to a repository of its own, provider:owner/name (github, gitlab or bitbucket)")
	fl.StringVar(&opts.Checkpoints, "checkpoints", "", "checkpoint layout: git-refs (one ref each, the default in a new repository) or git-branch (entire/checkpoints/v1)")
	fl.BoolVar(&opts.Telemetry, "telemetry", true, "set to false to record a telemetry opt-out (nothing is ever sent)")
	fl.BoolVar(&opts.LocalDev, "local-dev", false, "hooks run the development build with go run")
	fl.Bool("ignore-untracked", false, "accepted for compatibility; has no effect")
	_ = fl.MarkHidden("local-dev")
	_ = fl.MarkHidden("ignore-untracked")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if strings.Contains(err.Error(), "flag needs an argument") && strings.Contains(err.Error(), "--agent") {
			printAgentList(f.IO.ErrOut, "")
			return silentError(err)
		}
		return &usageError{err}
	})
	cmd.AddCommand(newEnableGitHookCmd(f))
	return cmd
}

// runEnable sets Entire up in the repository of the working directory.
func runEnable(ctx context.Context, opts *enableOptions) error {
	f := opts.f
	out, errOut := f.IO.Out, f.IO.ErrOut
	repo, err := openRepoFor(f, "entire enable")
	if err != nil {
		return err
	}
	switch opts.Strategy {
	case "", settings.StrategyManualCommit, settings.StrategyAutoCommit:
	default:
		return fmt.Errorf("unknown strategy: %s (use %s or %s)", opts.Strategy,
			settings.StrategyManualCommit, settings.StrategyAutoCommit)
	}
	mode := modeInteractive
	ag := agent.Default()
	switch {
	case opts.AgentSet:
		mode = modeAgent
		name := strings.TrimSpace(opts.Agent)
		if name == "" {
			printAgentList(errOut, "")
			return silentError(nil)
		}
		if ag, err = agent.Get(agent.AgentName(name)); err != nil {
			first := fmt.Sprintf("Unknown agent %q.", name)
			for _, e := range f.External {
				if e.Name == name && e.Err != nil {
					// The program is there but does not answer as one.
					first = fmt.Sprintf("Unknown agent %q: %s is not usable: %s", name, e.Path, iostreams.Escape(e.Err.Error()))
				}
			}
			printAgentList(errOut, first)
			return silentError(err)
		}
	case opts.Strategy != "":
		mode = modeStrategy
	}
	if ag == nil {
		return fmt.Errorf("enable: agent %s is not available in this build", agent.DefaultAgentName)
	}
	installer, ok := ag.(agent.HookInstaller)
	if !ok {
		return fmt.Errorf("enable: agent %s does not support hooks", ag.Name())
	}
	current, err := settings.Load(repo.Root)
	if err != nil {
		return fmt.Errorf("%w (fix or remove the file, then run 'entire enable' again)", err)
	}
	printRedactionProblems(f, redact.SettingsOptions(current))
	if !hasCommits(repo) {
		fmt.Fprintln(errOut, noCommitsNote)
	}
	if mode == modeInteractive && !opts.ConfigFlags {
		if st := inspectSetup(repo); st.complete(current) {
			refreshInstalledAgents(repo, current, out, errOut)
			fmt.Fprintln(out, "Already enabled. Everything looks good.")
			fmt.Fprintf(out, "Agent: %s\n", strings.Join(st.agentTypes(), ", "))
			fmt.Fprintf(out, "Config: %s\n", strings.Join(st.configFiles(), ", "))
			fmt.Fprintln(out, resolvePushTarget(ctx, f, repo, current).enableLine())
			return nil
		}
	}

	switch mode {
	case modeAgent:
		fmt.Fprintf(out, "Agent: %s\n", ag.Type())
	case modeInteractive:
		fmt.Fprintf(out, "Agent: %s (use --agent to change)\n", ag.Type())
	}
	localDev := opts.LocalDev || current.LocalDev
	track, err := trackInstall(repo)
	if err != nil {
		return err
	}
	added, err := installer.InstallHooksIn(repo.Root, agent.HookInstallOptions{LocalDev: localDev, Force: opts.Force, Log: track.log})
	if err != nil {
		return fmt.Errorf("install %s hooks: %w", ag.Type(), err)
	}
	if added > 0 {
		if err := hooks.ResetHooksRan(repo, ag.Name()); err != nil {
			return err
		}
	}
	if _, err := hooks.RegisterMCP(repo.Root, ag.Name(), track.log); err != nil {
		return fmt.Errorf("register the entire MCP server for %s: %w", ag.Type(), err)
	}
	appended, err := settings.EnsureDir(repo.Root)
	if err != nil {
		return err
	}
	track.log.AddAppended(settingsGitignore, appended)
	newLayout := opts.Checkpoints
	if newLayout == "" {
		newLayout = chooseLayout(repo)
	}
	target, err := writeEnableSettings(repo.Root, opts, mode, newLayout, track.log, out)
	if err != nil {
		return err
	}
	if _, ext := ag.(*external.Agent); ext {
		// The program runs from now on at every hook and command: the
		// user's choice, kept in the untracked local file only.
		yes := true
		local := settings.LocalPath(repo.Root)
		if _, err := (settingsEdit{ExternalAgents: &yes}).apply(local, track.log.Record(settings.LocalRel), false, false); err != nil {
			return err
		}
	}
	merged, err := settings.Load(repo.Root)
	if err != nil {
		return err
	}
	gitHooks, err := githook.Install(githook.Options{RepoRoot: repo.Root, LocalDev: merged.LocalDev, Warn: errOut})
	if err != nil {
		return err
	}
	if err := track.finish(); err != nil {
		return err
	}
	spec := enableSpec(ag)
	if mode == modeAgent {
		desc := ag.Description()
		if spec.Preview {
			desc += " (Preview)"
		}
		if added > 0 {
			fmt.Fprintf(out, "Installed %d hooks for %s\n", added, desc)
		} else {
			fmt.Fprintf(out, "Hooks for %s already installed\n", desc)
		}
	} else {
		fmt.Fprintln(out, "✓ Hooks installed")
	}
	fmt.Fprintf(out, "✓ Project configured (%s)\n", filepath.ToSlash(filepath.Join(settings.Dir, filepath.Base(target))))
	if layout, _ := checkpoint.LayoutOf(loadSettings(repo).CheckpointsType()); layout == checkpoint.LayoutBranch {
		created, err := checkpoint.NewStore(repo, f.Now).EnsureBranch(ctx)
		if err != nil {
			return err
		}
		if created {
			fmt.Fprintf(errOut, "✓ Created orphan branch '%s' for session metadata\n", checkpoint.MetadataBranch)
		}
	}
	ignored := map[string]string{}
	for _, file := range spec.Files {
		if !file.Personal {
			continue
		}
		how, err := ignorePersonalFile(ctx, repo, ag, file.Path)
		if err != nil {
			fmt.Fprintf(errOut, "Warning: %v\n", err)
			how = "add it to .git/info/exclude"
		}
		ignored[file.Path] = how
	}
	printEnableFiles(out, spec, ignored, target, relHooksDir(repo, gitHooks.Dir))
	if spec.Trust != "" {
		fmt.Fprintf(out, "\n! %s\n", spec.Trust)
	}
	if spec.Note != "" {
		fmt.Fprintf(out, "\nNote: %s\n", spec.Note)
	}
	fmt.Fprintln(out, resolvePushTarget(ctx, f, repo, merged).enableLine())
	fmt.Fprintln(out, "\nReady.")
	return nil
}

// writeEnableSettings writes what enable sets into the settings file chosen
// by the settings-target rule (SPEC 1.3) and returns its path. The --agent
// mode writes the project file unless --local is given. When the project
// file is written, keys the local file also sets are updated there too, so
// that an override (typically "enabled": false from `entire disable`) does
// not undo the enable.
func writeEnableSettings(root string, opts *enableOptions, mode enableMode, layout string, log *agent.InstallLog, info io.Writer) (string, error) {
	record := func(path string) *jsonedit.Record {
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return nil
		}
		return log.Record(filepath.ToSlash(rel))
	}
	project, local := settings.ProjectPath(root), settings.LocalPath(root)
	_, statErr := os.Stat(project)
	projectExists := statErr == nil
	yes, no := true, false
	edit := settingsEdit{Enabled: &yes}
	switch {
	case opts.Strategy != "":
		edit.Strategy = &opts.Strategy
	case !projectExists && !opts.Local:
		def := settings.DefaultStrategy
		edit.Strategy = &def
	}
	if opts.LocalDev {
		edit.LocalDev = &yes
	}
	if !opts.Telemetry || opts.f.Getenv(settings.EnvTelemetryOptOut) != "" {
		edit.Telemetry = &no
	}
	if opts.SkipPushSessions {
		edit.Options = map[string]any{settings.OptPushSessions: false}
	}
	if layout != "" {
		edit.CheckpointsType = &layout
	}
	if opts.CheckpointRemote != "" {
		obj, err := settings.ParseCheckpointRemoteFlag(opts.CheckpointRemote)
		if err != nil {
			return "", err
		}
		if edit.Options == nil {
			edit.Options = map[string]any{}
		}
		edit.Options[settings.OptCheckpointRemote] = obj
	}
	target := project
	switch {
	case opts.Local:
		target = local
	case opts.Project || mode == modeAgent || !projectExists:
	default:
		// The project file is shared: leave it alone, unless it already
		// says everything this run would write.
		changes, err := edit.apply(project, nil, false, true)
		if err != nil {
			return "", err
		}
		if changes {
			target = local
			fmt.Fprintln(info, "Info: Project settings exist. Saving to settings.local.json instead.")
			fmt.Fprintln(info, "  Use --project to update the project settings file.")
		}
	}
	if _, err := edit.apply(target, record(target), false, false); err != nil {
		return "", err
	}
	if target == project {
		if _, err := edit.apply(local, record(local), true, false); err != nil {
			return "", err
		}
	}
	return target, nil
}

// chooseLayout returns the checkpoint layout a first enable writes into
// the settings, as today's Entire does: "git-refs" in a repository whose
// settings name none and that has no entire/checkpoints/v1 history (its
// own branch or a remote's copy); "" (write nothing) otherwise, so that a
// repository with a v1 history keeps it.
func chooseLayout(repo *gitrepo.Repo) string {
	s, err := settings.Load(repo.Root)
	if err != nil || len(s.Checkpoints) > 0 {
		return ""
	}
	if h, err := repo.ReadRef(checkpoint.MetadataRef); err != nil || !h.IsZero() {
		return ""
	}
	remotes, err := repo.ListRefs("refs/remotes/")
	if err != nil {
		return ""
	}
	for name := range remotes {
		if strings.HasSuffix(string(name), "/"+checkpoint.MetadataBranch) {
			return ""
		}
	}
	return settings.CheckpointsGitRefs
}

// printAgentList prints the registered agents and how to pick one, after
// an optional first line.
func printAgentList(w io.Writer, first string) {
	if first != "" {
		fmt.Fprintf(w, "%s\n\n", first)
	}
	fmt.Fprintln(w, "Available agents:")
	for _, name := range agent.List() {
		if name == agent.DefaultAgentName {
			fmt.Fprintf(w, "  %-15s(default)\n", name)
		} else {
			fmt.Fprintf(w, "  %s\n", name)
		}
	}
	fmt.Fprintln(w, "\nUsage: entire enable --agent <agent-name>")
	fmt.Fprintln(w, "Any other agent: a program entire-agent-<name> on PATH (Entire's external-agent protocol).")
}

// newEnableGitHookCmd is the hidden `entire enable git-hook`: git hooks only.
func newEnableGitHookCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:    "git-hook",
		Short:  "Install the git hooks only",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			repo, err := openRepoFor(f, "entire enable git-hook")
			if err != nil {
				return err
			}
			localDev := false
			if s, err := settings.Load(repo.Root); err == nil {
				localDev = s.LocalDev
			}
			res, err := githook.Install(githook.Options{RepoRoot: repo.Root, LocalDev: localDev, Warn: f.IO.ErrOut})
			if err != nil {
				return err
			}
			printGitHookSummary(f.IO.Out, repo, res)
			return nil
		},
	}
}

// printGitHookSummary prints what githook.Install did.
func printGitHookSummary(w io.Writer, repo *gitrepo.Repo, res githook.Result) {
	dir := relHooksDir(repo, res.Dir)
	if res.Changed > 0 {
		fmt.Fprintf(w, "✓ Installed %d git hooks in %s\n", res.Changed, dir)
	} else {
		fmt.Fprintf(w, "✓ Git hooks already installed in %s\n", dir)
	}
}

// refreshInstalledAgents brings the hooks and MCP registration of every
// agent that already has entire's hooks up to date, so that running
// `entire enable` after an upgrade adds hooks a newer version needs, and
// records what it adds in the install log. Installing is idempotent: an
// up-to-date setup is left byte for byte. An install log that cannot be
// read is reported and left as it is; what is added then is not recorded
// (uninstalling falls back to what Entire recognises as its own).
func refreshInstalledAgents(repo *gitrepo.Repo, s *settings.Settings, out, errOut io.Writer) {
	log, err := loadInstallLog(repo)
	if err != nil {
		fmt.Fprintf(errOut, "Warning: %v; hooks added now are not recorded in it\n", err)
	}
	for _, a := range registeredAgents() {
		inst, ok := a.(agent.HookInstaller)
		if !ok {
			continue
		}
		if installed, err := inst.HooksInstalledIn(repo.Root); err != nil || !installed {
			continue
		}
		if n, err := inst.InstallHooksIn(repo.Root, agent.HookInstallOptions{LocalDev: s.LocalDev, Log: log}); err != nil {
			fmt.Fprintf(errOut, "Warning: could not update %s hooks: %v\n", a.Type(), err)
		} else if n > 0 {
			fmt.Fprintf(out, "Updated %s hooks (%d added)\n", a.Type(), n)
		}
		if _, err := hooks.RegisterMCP(repo.Root, a.Name(), log); err != nil {
			fmt.Fprintf(errOut, "Warning: could not register the entire MCP server for %s: %v\n", a.Type(), err)
		}
	}
	if log != nil {
		if err := saveInstallLog(repo, log); err != nil {
			fmt.Fprintf(errOut, "Warning: %v\n", err)
		}
	}
}

// relHooksDir returns the git hooks directory relative to the work tree
// when it is inside it.
func relHooksDir(repo *gitrepo.Repo, dir string) string {
	if rel, err := filepath.Rel(repo.Root, dir); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return dir
}
