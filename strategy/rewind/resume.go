package rewind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/go-git/go-git/v5/plumbing"
)

// ResumeLimit bounds the commits resume searches for a checkpoint (SPEC
// 6.5).
const ResumeLimit = 100

// branchFetchTimeout bounds fetching a code branch that is not here.
const branchFetchTimeout = 2 * time.Minute

// ResumeOptions are the inputs of Resume.
type ResumeOptions struct {
	// Repo is the repository, opened in its work tree.
	Repo *gitrepo.Repo
	// Branch is the branch to resume.
	Branch string
	// Force overwrites newer local transcripts and resumes from an older
	// checkpoint without asking.
	Force bool
	// Now is the clock of metadata merges; nil means time.Now.
	Now func() time.Time
	// Out receives what resume reports as it goes (fetches, the checkout,
	// checkpoints without data, notes); nil discards it.
	Out io.Writer
	// Ask asks the user the questions resume may have; it must not be nil.
	Ask ResumeAsker
	// Getenv reads the environment (ENTIRE_CHECKPOINT_TOKEN for fetches
	// from the checkpoint destination); nil reads nothing.
	Getenv func(string) string
}

// ResumeAsker asks the user what Resume cannot decide alone. Each method
// returns nil to go on; an error stops Resume, which returns it as it is,
// before anything was changed.
type ResumeAsker interface {
	// ConfirmFetch is asked when branch is neither here nor known from
	// origin, before it is fetched from origin.
	ConfirmFetch(branch string) error
	// ConfirmOlder is asked, unless Force, when the newest commits of the
	// branch carry no checkpoint and an older one does.
	ConfirmOlder(p OlderCheckpoint) error
	// ConfirmOverwrite is asked, unless Force, when local transcripts have
	// newer entries than the checkpoint's.
	ConfirmOverwrite(newer []NewerTranscript) error
}

// OlderCheckpoint is the commit resume found a checkpoint on when newer
// commits of the branch have none.
type OlderCheckpoint struct {
	Branch  string
	Newer   int    // the non-merge commits after it
	Commit  string // its full hash
	Subject string // its subject line, raw
}

// NewerTranscript is a local transcript with newer entries than the
// checkpoint's, which resume would overwrite.
type NewerTranscript struct {
	SessionID string
	Path      string
}

// ResumeResult is what Resume restored, for the commands that continue it.
type ResumeResult struct {
	// Commit is the commit whose checkpoints were restored ("" when none).
	Commit string
	// Restored are the sessions written back, ordered by their
	// transcripts' last entry, the most recent last; empty when nothing
	// was restored (what Resume reported says why).
	Restored []RestoredSession
	// Others are the sessions of the branch's older checkpoints that were
	// not restored, newest first.
	Others []OtherSession
}

// RestoredSession is a session Resume wrote back.
type RestoredSession struct {
	SessionID string
	// Path is the file the transcript was written to.
	Path string
	// ResumeCommand continues the session (agent.Agent.FormatResumeCommand).
	ResumeCommand string
	// Prompt is the session's last prompt, raw; "" when none was stored.
	Prompt string
}

// OtherSession is a session of an older checkpoint of the resumed branch
// that Resume did not restore; `entire rewind --to <Commit> --logs-only`
// restores it.
type OtherSession struct {
	SessionID string
	// Prompt is its last prompt, raw; "" when none was stored.
	Prompt string
	// Commit carries its newest checkpoint.
	Commit string
	// Overlaps are restored sessions that the same checkpoint holds an
	// older transcript of.
	Overlaps []string
}

// resumer is one run of Resume.
type resumer struct {
	ResumeOptions
	store *checkpoint.Store
}

// printf reports progress (iostreams.Printf): the errors it reports may
// carry what the checkpoint remote answered.
func (r *resumer) printf(format string, a ...any) { iostreams.Printf(r.Out, format, a...) }

// Resume checks a branch out and writes the transcripts of the sessions of
// its latest checkpoint back where their agents keep them (SPEC 6.5). It
// checks everything first (branch, checkpoint, metadata, the agents'
// directories, newer local transcripts) and only then checks the branch
// out and writes the transcripts; then it fetches the hides and notes
// branches when they are missing here and restores the sessions' notes.
// The checkpoint metadata is fetched from the checkpoint remote when it is
// not here. A commit may carry several checkpoints (a squash merge); a
// session found in several of them is restored from the one whose
// transcript goes furthest.
func Resume(ctx context.Context, opts ResumeOptions) (*ResumeResult, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	r := &resumer{ResumeOptions: opts, store: checkpoint.NewStore(opts.Repo, opts.Now)}
	repo, b := r.Repo, r.Branch
	// A name like an option never reaches git's argument list.
	if strings.HasPrefix(b, "-") {
		return nil, fmt.Errorf("invalid branch name %q", b)
	}
	if _, err := repo.RunGit(ctx, "check-ref-format", "--branch", b); err != nil {
		return nil, fmt.Errorf("invalid branch name %q", b)
	}
	tip, checkout, err := r.target(ctx)
	if err != nil {
		return nil, err
	}
	if checkout != nil {
		if st, err := repo.RunGit(ctx, "status", "--porcelain"); err != nil || len(strings.TrimSpace(string(st))) > 0 {
			return nil, errors.New("you have uncommitted changes. Please commit or stash them first")
		}
	}
	found, err := r.findCheckpoint(ctx, tip)
	if err != nil {
		return nil, err
	}
	if len(found.ids) == 0 {
		if err := r.checkout(ctx, checkout); err != nil {
			return nil, err
		}
		r.printf("No Entire checkpoint found on branch '%s'\n", b)
		return &ResumeResult{}, nil
	}
	if found.newer > 0 && !r.Force {
		if err := r.Ask.ConfirmOlder(OlderCheckpoint{Branch: b, Newer: found.newer, Commit: found.commit, Subject: found.subject}); err != nil {
			return nil, err
		}
	}
	cps, missing, err := r.readCheckpoints(ctx, found.ids)
	if err != nil {
		return nil, err
	}
	if len(cps) == 0 {
		if err := r.checkout(ctx, checkout); err != nil {
			return nil, err
		}
		r.printf("Checkpoint %s (commit %s) has no session data here or on the checkpoint remote; nothing to restore.\n", joinIDs(found.ids), found.commit[:7])
		return &ResumeResult{}, nil
	}
	plans, err := r.planAll(cps)
	if err != nil {
		return nil, err
	}
	if len(found.ids) > 1 {
		r.printf("Commit %s carries %d checkpoints: %s\n", found.commit[:7], len(found.ids), joinIDs(found.ids))
	}
	for _, id := range missing {
		r.printf("Checkpoint %s has no session data here or on the checkpoint remote; its sessions are not restored.\n", id)
	}
	if err := r.confirmNewer(plans); err != nil {
		return nil, err
	}
	if err := r.checkout(ctx, checkout); err != nil {
		return nil, err
	}
	res := &ResumeResult{Commit: found.commit}
	for _, p := range plans {
		s := &agent.AgentSession{SessionID: p.session.Metadata.SessionID, AgentName: p.agent.Name(),
			RepoPath: repo.Root, SessionRef: p.target, NativeData: p.content}
		if err := p.agent.WriteSession(s); err != nil {
			return nil, fmt.Errorf("restore session %s: %w", s.SessionID, err)
		}
		res.Restored = append(res.Restored, RestoredSession{SessionID: s.SessionID, Path: p.target,
			ResumeCommand: p.agent.FormatResumeCommand(s.SessionID), Prompt: p.prompt})
	}
	r.syncSideBranches(ctx)
	r.restoreNotes(ctx, plans)
	res.Others = r.olderSessions(ctx, tip, found.commit, plans)
	return res, nil
}

// checkoutStep is the git checkout resume runs, nil when already there.
type checkoutStep struct {
	args []string
	msg  string
}

// target finds the tip of the branch (fetching it from origin when it is
// neither local nor known from origin) and the checkout that switches to
// it.
func (r *resumer) target(ctx context.Context) (plumbing.Hash, *checkoutStep, error) {
	repo, b := r.Repo, r.Branch
	current, _ := repo.HeadBranch()
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
			if err := r.Ask.ConfirmFetch(b); err != nil {
				return tip, nil, err
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

// checkout runs c (nothing when nil) and reports it.
func (r *resumer) checkout(ctx context.Context, c *checkoutStep) error {
	if c == nil {
		return nil
	}
	if _, err := r.Repo.RunGit(ctx, c.args...); err != nil {
		return fmt.Errorf("git %s: %w", strings.Join(c.args, " "), err)
	}
	r.printf("%s\n", c.msg)
	return nil
}

// resumePoint is the commit with checkpoints found on a branch.
type resumePoint struct {
	ids     []checkpoint.ID // every checkpoint it carries (checkpoint.CheckpointsOf)
	commit  string
	subject string
	newer   int // non-merge commits after it
}

// branchLog returns `git log` over the commits resume searches on the
// branch: first parents from tip, at most ResumeLimit, down to the
// merge-base with the default branch (the whole history on the default
// branch itself, local or origin/<b> in a fresh clone, or when tip has no
// commits of its own: SPEC 6.5), in the given format.
func (r *resumer) branchLog(ctx context.Context, tip plumbing.Hash, format string) ([]byte, error) {
	b := r.Branch
	args := []string{"log", "--first-parent", "-n", strconv.Itoa(ResumeLimit), "--format=" + format, tip.String()}
	if def := r.Repo.DefaultBranch(); def != "" && def != b && def != "origin/"+b {
		if _, err := r.Repo.RunGit(ctx, "merge-base", "--is-ancestor", tip.String(), def); err != nil {
			args = append(args, "--not", def)
		}
	}
	return r.Repo.RunGit(ctx, args...)
}

// findCheckpoint returns the first commit of the branch log that carries
// checkpoints: its own trailer, or those of the commits a squash merge or
// rebase combined into it.
func (r *resumer) findCheckpoint(ctx context.Context, tip plumbing.Hash) (resumePoint, error) {
	out, err := r.branchLog(ctx, tip, "%H%x1f%P%x1f%s%x1f%B%x1e")
	if err != nil {
		return resumePoint{}, fmt.Errorf("read history of %s: %w", r.Branch, err)
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

// joinIDs lists checkpoint IDs separated by commas.
func joinIDs(ids []checkpoint.ID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	return strings.Join(s, ", ")
}
