package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/push"
	"github.com/entirecli/entire/hide"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/internal/settings"
	"github.com/entirecli/entire/notes"
	"github.com/entirecli/entire/strategy"
	"github.com/go-git/go-git/v5/plumbing"
)

// resumeOptions holds the dependencies and flag values of `entire resume`.
type resumeOptions struct {
	f *factory

	Branch string // the branch to resume
	Force  bool   // -f/--force: no questions; overwrite newer local transcripts
}

func newResumeCmd(f *factory, runF func(context.Context, *resumeOptions) error) *cobra.Command {
	opts := &resumeOptions{f: f}
	cmd := &cobra.Command{
		Use:   "resume <branch>",
		Short: "Switch to a branch and restore its agent sessions",
		Long: `Check out <branch>, find the latest checkpoint on it, write the transcripts of
its sessions back where the agent keeps them (fetching the checkpoint metadata
from the checkpoint remote when it is missing here), and print the command
that continues each session (claude -r <id>, gemini --resume <id>).

It works in a fresh clone on another machine. A local transcript with newer
entries than the checkpoint's is only overwritten after confirmation or with
--force. Nothing is changed when something is wrong. Sessions that only
older checkpoints of the branch hold are named, each with the
` + "`entire rewind --to <commit> --logs-only`" + ` that restores it.`,
		Example: `  entire resume feature/login
  entire resume feature/login --force`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("resume takes exactly one argument, the branch name (got %d)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Branch = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runResume(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Force, "force", "f", false, "do not ask; overwrite newer local session transcripts")
	return cmd
}

// resumeLimit bounds the commits searched for a checkpoint (SPEC 6.5).
const resumeLimit = 100

// branchFetchTimeout bounds fetching a code branch that is not here.
const branchFetchTimeout = 2 * time.Minute

// restorePlan is one session transcript to write.
type restorePlan struct {
	agent   agent.Agent
	session *checkpoint.Session
	content []byte
	target  string
	newer   bool // the local file has newer entries than the checkpoint
	prompt  string
}

// runResume checks everything first (branch, checkpoint, metadata, agent
// directories, newer local transcripts) and only then checks the branch
// out and writes the transcripts.
func runResume(ctx context.Context, opts *resumeOptions) error {
	f := opts.f
	if ok, err := checkEnabled(f); err != nil || !ok {
		return err
	}
	repo, err := f.OpenRepo()
	if err != nil {
		return err
	}
	completePending(ctx, f, repo)
	b := opts.Branch
	if _, err := repo.RunGit(ctx, "check-ref-format", "--branch", b); err != nil || strings.HasPrefix(b, "-") {
		return fmt.Errorf("invalid branch name %q", b)
	}
	current, _ := repo.HeadBranch()
	tip, checkout, err := resumeTarget(ctx, f, repo, b, current)
	if err != nil {
		return err
	}
	if checkout != nil {
		if st, err := repo.RunGit(ctx, "status", "--porcelain"); err != nil || len(strings.TrimSpace(string(st))) > 0 {
			return errors.New("you have uncommitted changes. Please commit or stash them first")
		}
	}
	found, err := findResumeCheckpoint(ctx, repo, tip, b)
	if err != nil {
		return err
	}
	if len(found.ids) == 0 {
		if err := runCheckout(ctx, f, repo, checkout); err != nil {
			return err
		}
		fmt.Fprintf(f.IO.ErrOut, "No Entire checkpoint found on branch '%s'\n", b)
		return nil
	}
	if found.newer > 0 && !opts.Force {
		fmt.Fprintln(f.IO.ErrOut, "Found checkpoint in an older commit.")
		fmt.Fprintf(f.IO.ErrOut, "%d newer commit(s) on '%s' have no checkpoint.\n", found.newer, b)
		fmt.Fprintf(f.IO.ErrOut, "Checkpoint from: %s %s\n", found.commit[:7], iostreams.Escape(found.subject))
		ok, err := confirm(f, "Resume from this older checkpoint?", "Yes", "No", true)
		if errors.Is(err, errCannotPrompt) {
			return errors.New("not resuming from an older checkpoint without confirmation (use --force)")
		}
		if err != nil || !ok {
			return silentError(err)
		}
	}
	store := checkpoint.NewStore(repo, f.Now)
	cps, missing, err := readResumeCheckpoints(ctx, f, repo, store, found.ids)
	if err != nil {
		return err
	}
	if len(cps) == 0 {
		if err := runCheckout(ctx, f, repo, checkout); err != nil {
			return err
		}
		fmt.Fprintf(f.IO.ErrOut, "Checkpoint %s (commit %s) has no session data here or on the checkpoint remote; nothing to restore.\n", joinIDs(found.ids), found.commit[:7])
		return nil
	}
	plans, err := planRestoreAll(f, repo, cps)
	if err != nil {
		return err
	}
	if len(found.ids) > 1 {
		fmt.Fprintf(f.IO.ErrOut, "Commit %s carries %d checkpoints: %s\n", found.commit[:7], len(found.ids), joinIDs(found.ids))
	}
	for _, id := range missing {
		fmt.Fprintf(f.IO.ErrOut, "Checkpoint %s has no session data here or on the checkpoint remote; its sessions are not restored.\n", id)
	}
	if err := confirmNewer(f, plans, opts.Force); err != nil {
		return err
	}
	if err := runCheckout(ctx, f, repo, checkout); err != nil {
		return err
	}
	for _, p := range plans {
		s := &agent.AgentSession{SessionID: p.session.Metadata.SessionID, AgentName: p.agent.Name(),
			RepoPath: repo.Root, SessionRef: p.target, NativeData: p.content}
		if err := p.agent.WriteSession(s); err != nil {
			return fmt.Errorf("restore session %s: %w", s.SessionID, err)
		}
	}
	syncSideBranches(ctx, f, repo)
	restoreCheckpointNotes(ctx, f, repo, plans, opts.Force)
	printResumeCommands(f, plans)
	printOtherSessions(ctx, f, repo, store, tip, b, found.commit, plans)
	return nil
}

// sideBranches are the entire branches that travel with the metadata
// branch: the hides the sessions made and the agents' notes.
var sideBranches = []string{hide.BranchRef.Short(), notes.BranchRef.Short()}

// syncSideBranches fetches the hides and notes branches from the
// checkpoint remote when they are missing here (a fresh clone), bounded by
// strategy_options.push_timeout. Failures are reported, not errors.
func syncSideBranches(ctx context.Context, f *factory, repo *gitrepo.Repo) {
	s := loadSettings(repo)
	remote := s.CheckpointRemote()
	if _, err := repo.RunGit(ctx, "remote", "get-url", "--", remote); err != nil {
		return
	}
	for _, b := range sideBranches {
		local := plumbing.ReferenceName("refs/heads/" + b)
		if h, _ := repo.ReadRef(local); !h.IsZero() {
			continue
		}
		tracking := plumbing.ReferenceName("refs/remotes/" + remote + "/" + b)
		if h, _ := repo.ReadRef(tracking); h.IsZero() {
			if err := push.FetchBranch(ctx, repo, remote, b, s.PushTimeout()); err != nil {
				continue // the remote may simply not have it
			}
		}
		if h, _ := repo.ReadRef(tracking); !h.IsZero() {
			if err := repo.UpdateRef(local, h, plumbing.ZeroHash); err != nil {
				fmt.Fprintf(f.IO.ErrOut, "Could not create %s: %v\n", b, err)
			}
		}
	}
}

// restoreCheckpointNotes brings back the notes recorded with the resumed
// sessions (issue 6): always where this machine has no notes for that
// agent yet, and over different local notes only with --force.
func restoreCheckpointNotes(ctx context.Context, f *factory, repo *gitrepo.Repo, plans []restorePlan, force bool) {
	done := map[string]bool{}
	for i := len(plans) - 1; i >= 0; i-- { // the newest session's notes win
		p := plans[i]
		tree, ok := strategy.NotesTree(repo, p.session.TreeHash())
		name := string(p.agent.Name())
		if !ok || done[name] {
			continue
		}
		done[name] = true
		st, err := notes.NewStore(ctx, repo, notes.WithAgent(name))
		if err != nil {
			continue
		}
		cur, err := st.TreeHash(ctx)
		if err != nil || cur == tree {
			continue
		}
		if !cur.IsZero() && !force {
			fmt.Fprintf(f.IO.ErrOut, "Kept your %s notes, which differ from the checkpoint's (use --force to restore those).\n", name)
			continue
		}
		if err := st.Restore(ctx, tree); err != nil {
			fmt.Fprintf(f.IO.ErrOut, "Could not restore %s notes: %v\n", name, err)
			continue
		}
		fmt.Fprintf(f.IO.ErrOut, "Restored %s notes from the checkpoint.\n", name)
	}
}

// checkoutStep is the git checkout resume runs, nil when already there.
type checkoutStep struct {
	args []string
	msg  string
}

// resumeTarget finds the tip of branch b (fetching it from origin when it is
// neither local nor known from origin) and the checkout that switches to it.
func resumeTarget(ctx context.Context, f *factory, repo *gitrepo.Repo, b, current string) (plumbing.Hash, *checkoutStep, error) {
	local := plumbing.ReferenceName("refs/heads/" + b)
	remote := plumbing.ReferenceName("refs/remotes/origin/" + b)
	if tip, _ := repo.ReadRef(local); !tip.IsZero() {
		if b == current {
			return tip, nil, nil
		}
		return tip, &checkoutStep{args: []string{"checkout", "--quiet", b}, msg: fmt.Sprintf("Switched to branch '%s'", b)}, nil
	}
	tip, _ := repo.ReadRef(remote)
	if tip.IsZero() {
		if _, err := repo.RunGit(ctx, "remote", "get-url", "origin"); err == nil {
			// SPEC 6.5's question where there is a terminal to ask on;
			// without one, the fetch is what the command asks for.
			ok, err := confirm(f, fmt.Sprintf("Branch '%s' not found locally. Fetch from origin?", b), "Yes", "No", true)
			switch {
			case errors.Is(err, errCannotPrompt):
				fmt.Fprintf(f.IO.ErrOut, "Branch '%s' not found locally. Fetching it from origin...\n", b)
			case err != nil:
				return tip, nil, err
			case !ok:
				return tip, nil, silentError(nil)
			}
			cctx, cancel := context.WithTimeout(ctx, branchFetchTimeout)
			_, ferr := repo.RunGit(cctx, "fetch", "--quiet", "--no-tags", "origin", "+refs/heads/"+b+":refs/remotes/origin/"+b)
			cancel()
			if ferr == nil {
				tip, _ = repo.ReadRef(remote)
			}
		}
	}
	if tip.IsZero() {
		return tip, nil, fmt.Errorf("branch '%s' not found locally or on origin", b)
	}
	return tip, &checkoutStep{args: []string{"checkout", "--quiet", "-b", b, "--track", "origin/" + b},
		msg: fmt.Sprintf("Created branch '%s' from origin/%s and switched to it", b, b)}, nil
}

func runCheckout(ctx context.Context, f *factory, repo *gitrepo.Repo, c *checkoutStep) error {
	if c == nil {
		return nil
	}
	if _, err := repo.RunGit(ctx, c.args...); err != nil {
		return fmt.Errorf("git %s: %w", strings.Join(c.args, " "), err)
	}
	fmt.Fprintln(f.IO.ErrOut, c.msg)
	return nil
}

// resumePoint is the commit with checkpoints found on a branch.
type resumePoint struct {
	ids     []checkpoint.ID // every checkpoint it carries (checkpoint.CheckpointsOf)
	commit  string
	subject string
	newer   int // non-merge commits after it
}

// findResumeCheckpoint walks first parents from tip (at most 100 commits,
// stopping at the default branch when b is not it) and returns the first
// commit that carries checkpoints: its own trailer, or those of the commits
// a squash merge or rebase combined into it.
func findResumeCheckpoint(ctx context.Context, repo *gitrepo.Repo, tip plumbing.Hash, b string) (resumePoint, error) {
	args := []string{"log", "--first-parent", "-n", strconv.Itoa(resumeLimit), "--format=%H%x1f%P%x1f%s%x1f%B%x1e", tip.String()}
	// Down to the merge-base with the default branch; on the default
	// branch itself (local, or origin/<b> in a fresh clone), or when tip
	// has no commits of its own, the whole history (SPEC 6.5).
	if def := defaultBranch(repo); def != "" && def != b && def != "origin/"+b {
		if _, err := repo.RunGit(ctx, "merge-base", "--is-ancestor", tip.String(), def); err != nil {
			args = append(args, "--not", def)
		}
	}
	out, err := repo.RunGit(ctx, args...)
	if err != nil {
		return resumePoint{}, fmt.Errorf("read history of %s: %w", b, err)
	}
	var p resumePoint
	for _, rec := range strings.Split(string(out), "\x1e") {
		fields := strings.SplitN(strings.TrimLeft(rec, "\n"), "\x1f", 4)
		if len(fields) != 4 {
			continue
		}
		if ids := checkpoint.CheckpointsOf(fields[3]); len(ids) > 0 {
			p.ids, p.commit, p.subject = ids, fields[0], fields[2]
			return p, nil
		}
		if len(strings.Fields(fields[1])) < 2 {
			p.newer++
		}
	}
	return resumePoint{}, nil
}

// defaultBranch returns the default branch as a revision: origin's HEAD,
// else a local main or master; "" when unknown.
func defaultBranch(repo *gitrepo.Repo) string {
	if data, err := os.ReadFile(filepath.Join(repo.CommonDir, "refs", "remotes", "origin", "HEAD")); err == nil {
		if ref, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: refs/remotes/"); ok {
			return ref
		}
	}
	for _, b := range []string{"main", "master"} {
		if h, _ := repo.ReadRef(plumbing.ReferenceName("refs/heads/" + b)); !h.IsZero() {
			return b
		}
	}
	return ""
}

// syncMetadata brings checkpoint metadata from the checkpoint remote into
// the local metadata branch: first what was already fetched
// (refs/remotes/<remote>/entire/checkpoints/v1); then, when has still
// reports false, a fetch bounded by strategy_options.push_timeout. The local
// branch is created from the remote one, fast-forwarded, or merged with it
// as pre-push merges (no checkpoint is lost on either side). A failed fetch
// is reported and not an error.
func syncMetadata(ctx context.Context, f *factory, repo *gitrepo.Repo, has func() bool) error {
	s, err := settings.Load(repo.Root)
	if err != nil {
		s = settings.Defaults()
	}
	remote := s.CheckpointRemote()
	tracking := plumbing.ReferenceName("refs/remotes/" + remote + "/" + checkpoint.MetadataBranch)
	if err := integrateMetadata(ctx, f, repo, tracking); err != nil || has() {
		return err
	}
	if _, err := repo.RunGit(ctx, "remote", "get-url", "--", remote); err != nil {
		return nil // no checkpoint remote: nothing to fetch from
	}
	fmt.Fprintf(f.IO.ErrOut, "Fetching session metadata from %s...\n", remote)
	if err := push.FetchBranch(ctx, repo, remote, checkpoint.MetadataBranch, s.PushTimeout()); err != nil {
		fmt.Fprintf(f.IO.ErrOut, "Could not fetch session metadata: %v\n", err)
		return nil
	}
	return integrateMetadata(ctx, f, repo, tracking)
}

// integrateMetadata makes the local metadata branch contain the commit at
// tracking (nothing when that ref does not exist).
func integrateMetadata(ctx context.Context, f *factory, repo *gitrepo.Repo, tracking plumbing.ReferenceName) error {
	fetched, _ := repo.ReadRef(tracking)
	if fetched.IsZero() {
		return nil
	}
	local, err := repo.ReadRef(checkpoint.MetadataRef)
	if err != nil {
		return err
	}
	next := fetched
	if !local.IsZero() {
		if next, err = push.MergeCommits(ctx, repo, local, fetched, push.MergeOptions{Checkpoints: true, Now: f.Now}); err != nil {
			return fmt.Errorf("merge %s into %s: %w", tracking.Short(), checkpoint.MetadataBranch, err)
		}
	}
	if next == local {
		return nil
	}
	if err := repo.UpdateRef(checkpoint.MetadataRef, next, local); err != nil {
		return fmt.Errorf("update %s: %w", checkpoint.MetadataBranch, err)
	}
	return nil
}
