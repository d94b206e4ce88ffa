package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/hide"
	"github.com/entirecli/entire/hooks"
	"github.com/entirecli/entire/hooks/githook"
	"github.com/entirecli/entire/internal/fswatch"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/settings"
	"github.com/entirecli/entire/notes"
	"github.com/entirecli/entire/strategy/rewind"
	"github.com/entirecli/entire/strategy/translog"
	"github.com/go-git/go-git/v5/plumbing"
)

// disableOptions holds the dependencies and flag values of `entire disable`.
type disableOptions struct {
	f *factory

	Project   bool // --project: write enabled:false to the project file
	Uninstall bool // --uninstall: remove everything Entire installed
	Force     bool // --force: uninstall without asking
	// DeleteUndo (--delete-undo) also deletes the local undo data with
	// --uninstall; without it the data is kept unless the user says
	// otherwise when asked.
	DeleteUndo bool
}

func newDisableCmd(f *factory, runF func(context.Context, *disableOptions) error) *cobra.Command {
	opts := &disableOptions{f: f}
	cmd := &cobra.Command{
		Use:   "disable",
		Short: "Disable Entire in this repository",
		Long: `Turn Entire off in this repository. The hooks stay installed but do nothing
until 'entire enable' is run again. The setting is written to
.entire/settings.local.json (or .entire/settings.json with --project).

With --uninstall, remove everything Entire installed: the agent hooks of
` + agentTypeList("and") + `, the git hooks (restoring the hooks they chained
to), the session state, the .entire/ directory and the shadow branches. The
entire/checkpoints/v1 branch, which holds your committed checkpoints, and
the hides and notes branches are kept. --uninstall asks for confirmation
unless --force is given.

The local undo data of 'entire rewind' (never pushed, but it holds
unredacted transcripts) is kept too, unless you say to delete it when asked
or give --delete-undo.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Force && !opts.Uninstall {
				return usageErrorf("--force is only used with --uninstall")
			}
			if opts.DeleteUndo && !opts.Uninstall {
				return usageErrorf("--delete-undo is only used with --uninstall")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runDisable(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.Project, "project", false, "write the setting to .entire/settings.json")
	fl.BoolVar(&opts.Uninstall, "uninstall", false, "remove Entire's hooks, settings, session state and shadow branches")
	fl.BoolVarP(&opts.Force, "force", "f", false, "uninstall without asking for confirmation")
	fl.BoolVar(&opts.DeleteUndo, "delete-undo", false, "with --uninstall, also delete the local undo data of rewinds (unredacted transcripts)")
	return cmd
}

// runDisable disables Entire, or uninstalls it with --uninstall.
func runDisable(ctx context.Context, opts *disableOptions) error {
	f := opts.f
	repo, err := openRepoFor(f, "entire disable")
	if err != nil {
		return err
	}
	if opts.Uninstall {
		return runUninstall(ctx, opts, repo)
	}
	if !settings.Exists(repo.Root) {
		fmt.Fprintln(f.IO.Out, "Entire is not set up in this repository; nothing to disable.")
		return nil
	}
	var target string
	var s *settings.Settings
	if opts.Project {
		// The project file keeps its own content: merging the local
		// overrides into it would publish personal settings.
		target = settings.ProjectPath(repo.Root)
		s, err = settings.LoadFile(target)
		if errors.Is(err, os.ErrNotExist) {
			s, err = settings.Defaults(), nil
		}
	} else {
		target = settings.LocalPath(repo.Root)
		s, err = settings.Load(repo.Root)
	}
	if err != nil {
		return fmt.Errorf("%w (fix or remove the file, then run 'entire disable' again)", err)
	}
	s.Enabled = false
	if _, err := settings.EnsureDir(repo.Root); err != nil {
		return err
	}
	if err := settings.Save(target, s); err != nil {
		return err
	}
	fmt.Fprintln(f.IO.Out, "Entire is now disabled.")
	if merged, err := settings.Load(repo.Root); err == nil && !merged.Enabled {
		// The hooks are no-ops now: the work tree's watcher has nothing to
		// serve.
		if err := fswatch.Stop(fswatch.StateDir(repo.GitDir)); err != nil {
			fmt.Fprintf(f.IO.ErrOut, "Warning: %v\n", err)
		}
	}
	if opts.Project {
		if merged, err := settings.Load(repo.Root); err == nil && merged.Enabled {
			fmt.Fprintf(f.IO.ErrOut, "Warning: %s/%s sets \"enabled\": true, so Entire stays enabled for you; run 'entire disable' without --project too.\n",
				settings.Dir, settings.LocalFile)
		}
	}
	return nil
}

// uninstallPlan is what --uninstall will remove, and what it keeps.
type uninstallPlan struct {
	setupState
	SessionDir   string
	SessionFiles int
	Shadow       []string // shadow branch names
	// Kept are the entire branches that exist and are kept.
	Kept []keptBranch
	// KeptRefs counts the checkpoints stored as refs (SPEC 10.3), kept.
	KeptRefs int
	// UndoPoints counts the undo points, deleted only with consent.
	UndoPoints int
	// UndoDir is where the undo points are (rewind.UndoLocation).
	UndoDir string
}

// keptBranch is an entire branch uninstalling keeps.
type keptBranch struct {
	ref  plumbing.ReferenceName
	what string
}

// keptBranches are the branches that hold the team's shared data.
var keptBranches = []keptBranch{
	{checkpoint.MetadataRef, "committed checkpoints"},
	{hide.BranchRef, "hides"},
	{notes.BranchRef, "notes"},
}

// undoData names the local undo data of n undo points and where it is
// (rewind.UndoLocation).
func undoData(n int, dir string) string {
	return fmt.Sprintf("%s under %s", plural(n, "undo point", "undo points"), dir)
}

func (p uninstallPlan) empty() bool {
	return !p.EntireDir && p.GitHooks == 0 && p.SessionFiles == 0 && len(p.Shadow) == 0 && len(p.Agents) == 0
}

// planUninstall collects what is installed and what is kept.
func planUninstall(ctx context.Context, f *factory, repo *gitrepo.Repo, rw *rewind.Rewinder) (uninstallPlan, error) {
	p := uninstallPlan{setupState: inspectSetup(repo)}
	store := session.NewStore(session.Options{GitCommonDir: repo.CommonDir, Now: f.Now})
	p.SessionDir = store.Dir()
	states, corrupt, err := store.List()
	if err != nil {
		return p, err
	}
	p.SessionFiles = len(states) + len(corrupt)
	refs, err := repo.ListRefs("refs/heads/entire/")
	if err != nil {
		return p, err
	}
	for ref := range refs {
		if _, _, ok := checkpoint.ParseShadowBranch(string(ref)); ok {
			p.Shadow = append(p.Shadow, strings.TrimPrefix(string(ref), "refs/heads/"))
		}
	}
	sort.Strings(p.Shadow)
	for _, b := range keptBranches {
		if h, err := repo.ReadRef(b.ref); err == nil && !h.IsZero() {
			p.Kept = append(p.Kept, b)
		}
	}
	if ids, err := checkpoint.NewStore(repo, f.Now).RefIDs(); err == nil {
		p.KeptRefs = len(ids)
	}
	undo, err := rw.UndoPoints(ctx)
	if err != nil {
		return p, err
	}
	p.UndoPoints, p.UndoDir = len(undo), rewind.UndoLocation(repo)
	return p, nil
}

// describe prints the list of what will be removed.
func (p uninstallPlan) describe(f *factory) {
	w := f.IO.ErrOut
	fmt.Fprintln(w, "This will remove:")
	if p.EntireDir {
		fmt.Fprintf(w, "  - the %s/ directory (settings, logs, scratch files)\n", settings.Dir)
	}
	if p.GitHooks > 0 {
		fmt.Fprintf(w, "  - %s (hooks they chained to are restored)\n", plural(p.GitHooks, "git hook", "git hooks"))
	}
	if p.SessionFiles > 0 {
		fmt.Fprintf(w, "  - %s\n", plural(p.SessionFiles, "session state file", "session state files"))
	}
	if len(p.Shadow) > 0 {
		fmt.Fprintf(w, "  - %s (temporary checkpoints not yet committed)\n", plural(len(p.Shadow), "shadow branch", "shadow branches"))
	}
	if len(p.Agents) > 0 {
		fmt.Fprintf(w, "  - agent hooks (%s)\n", strings.Join(p.agentTypes(), ", "))
	}
	p.describeKept(w, "This keeps:", true)
}

// describeKept prints, under title, what uninstalling keeps: the entire
// branches and, with undo, the local undo data.
func (p uninstallPlan) describeKept(w io.Writer, title string, undo bool) {
	if !undo {
		p.UndoPoints = 0 // finishUndo tells
	}
	if len(p.Kept) == 0 && p.KeptRefs == 0 && p.UndoPoints == 0 {
		return
	}
	fmt.Fprintln(w, title)
	for _, b := range p.Kept {
		fmt.Fprintf(w, "  - the %s branch (%s)\n", b.ref.Short(), b.what)
	}
	if p.KeptRefs > 0 {
		fmt.Fprintf(w, "  - %s under %s (committed checkpoints)\n", plural(p.KeptRefs, "checkpoint ref", "checkpoint refs"), checkpoint.RefPrefix)
	}
	if p.UndoPoints > 0 {
		fmt.Fprintf(w, "  - %s (local, never pushed, with unredacted transcripts)\n", undoData(p.UndoPoints, p.UndoDir))
	}
}

// decideUndo reports whether the undo data goes too: with --delete-undo,
// or when the user says so (asked only when there is some, without
// --force, at a terminal). It is never deleted without consent.
func decideUndo(f *factory, opts *disableOptions, p uninstallPlan) (bool, error) {
	if p.UndoPoints == 0 {
		return false, nil
	}
	if opts.DeleteUndo {
		return true, nil
	}
	if opts.Force || !f.IO.CanPrompt() {
		return false, nil
	}
	return confirm(f, fmt.Sprintf("Also delete the local undo data (%s, unredacted)?", undoData(p.UndoPoints, p.UndoDir)), "Yes, delete it", "No, keep it", false)
}

// finishUndo deletes the undo data when del, else says it is kept and how
// to delete it. It returns false when the deletion failed (reported).
func finishUndo(ctx context.Context, f *factory, rw *rewind.Rewinder, p uninstallPlan, del bool) bool {
	if p.UndoPoints == 0 {
		return true
	}
	errOut := f.IO.ErrOut
	if !del {
		fmt.Fprintf(errOut, "Kept %s (unredacted transcripts); 'entire disable --uninstall --delete-undo' deletes the undo data.\n", undoData(p.UndoPoints, p.UndoDir))
		return true
	}
	n, err := rw.DeleteUndo(ctx)
	if err != nil {
		fmt.Fprintf(errOut, "Warning: delete the undo data: %v\n", err)
		return false
	}
	fmt.Fprintf(errOut, "Deleted %s.\n", undoData(n, p.UndoDir))
	return true
}

// runUninstall removes everything Entire installed, best-effort: a failing
// step is reported and the others still run; the command then exits 1.
func runUninstall(ctx context.Context, opts *disableOptions, repo *gitrepo.Repo) error {
	f := opts.f
	out, errOut := f.IO.Out, f.IO.ErrOut
	rw := rewind.New(rewind.Options{Repo: repo, Sessions: sessionStore(f, repo), Now: f.Now, Progress: errOut})
	plan, err := planUninstall(ctx, f, repo, rw)
	if err != nil {
		return err
	}
	if plan.empty() {
		fmt.Fprintln(out, "Entire is not installed in this repository.")
		del, err := decideUndo(f, opts, plan)
		if err != nil {
			return err
		}
		if !finishUndo(ctx, f, rw, plan, del) {
			return silentError(nil)
		}
		return nil
	}
	if !opts.Force {
		plan.describe(f)
		ok, err := confirm(f, "Are you sure you want to uninstall Entire?", "Yes, uninstall", "Cancel", false)
		if errors.Is(err, errCannotPrompt) {
			fmt.Fprintln(errOut, "Cannot ask for confirmation (not a terminal). Run 'entire disable --uninstall --force' to uninstall.")
			return silentError(err)
		}
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(out, "Uninstall cancelled.")
			return nil
		}
	}
	delUndo, err := decideUndo(f, opts, plan)
	if err != nil {
		return err
	}

	failed := false
	warn := func(format string, a ...any) {
		failed = true
		fmt.Fprintf(errOut, "Warning: "+format+"\n", a...)
	}
	log, err := loadInstallLog(repo)
	if err != nil {
		warn("%v", err)
	}
	for _, a := range registeredAgents() {
		if inst, ok := a.(agent.HookInstaller); ok {
			if err := inst.UninstallHooksIn(repo.Root, log); err != nil {
				warn("remove %s hooks: %v", a.Type(), err)
			}
		}
	}
	if err := hooks.UnregisterMCP(repo.Root, log); err != nil {
		warn("remove the entire MCP server registration: %v", err)
	}
	if _, err := githook.Uninstall(githook.Options{RepoRoot: repo.Root, Warn: errOut}); err != nil {
		warn("remove git hooks: %v", err)
	}
	if err := os.RemoveAll(plan.SessionDir); err != nil {
		warn("remove session state: %v", err)
	}
	if err := os.RemoveAll(filepath.Join(repo.CommonDir, translog.DirName)); err != nil {
		warn("remove the transcript logs: %v", err)
	}
	watchDir := fswatch.StateDir(repo.GitDir)
	if err := fswatch.Stop(watchDir); err != nil {
		warn("%v", err)
	}
	repo.RemoveSharedIndexes(fswatch.IndexFile(watchDir))
	if err := os.RemoveAll(watchDir); err != nil {
		warn("remove the file watcher's state: %v", err)
	}
	if err := removeEntireDir(repo, log); err != nil {
		warn("remove %s: %v", settings.Dir, err)
	}
	if err := settings.RemoveIgnored(repo.CommonDir); err != nil {
		warn("%v", err)
	}
	if err := unignorePersonalFiles(repo); err != nil {
		warn("%v", err)
	}
	if err := removeCreatedDirs(repo, log); err != nil {
		warn("remove the install log: %v", err)
	}
	if len(plan.Shadow) > 0 {
		// git branch -D refuses to delete a branch checked out in any
		// worktree, which update-ref would not.
		args := append([]string{"branch", "-D", "--"}, plan.Shadow...)
		if _, err := repo.RunGit(ctx, args...); err != nil {
			warn("delete shadow branches: %v", err)
		}
	}
	if opts.Force {
		plan.describeKept(errOut, "Kept:", false)
	}
	if !finishUndo(ctx, f, rw, plan, delUndo) {
		failed = true
	}
	if failed {
		fmt.Fprintln(errOut, "Entire CLI uninstalled, with the warnings above.")
		return silentError(nil)
	}
	fmt.Fprintln(out, "Entire CLI uninstalled successfully.")
	return nil
}

// plural is "<n> <one>" or "<n> <many>".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
