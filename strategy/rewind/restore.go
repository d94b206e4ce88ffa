package rewind

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Errors of the checks a rewind makes before touching anything. Each is
// returned wrapped, with a message a person can act on.
var (
	ErrDetachedHead = errors.New("rewind: HEAD is detached")
	ErrNoCommits    = errors.New("rewind: the repository has no commits")
	ErrStagedIndex  = errors.New("rewind: the index has staged changes")
	ErrConflict     = errors.New("rewind: another session changed the same files")
	ErrNotTemporary = errors.New("rewind: not a temporary checkpoint")
	ErrNotCommitted = errors.New("rewind: not a committed checkpoint")
)

// Plan is what a rewind will do, computed without changing anything.
type Plan struct {
	// Point is the rewind target.
	Point Point
	// Changes are the work-tree paths that change, sorted by path.
	Changes []FileChange
	// Kept are paths that differ from the target but belong to another
	// live session's uncommitted work, left as they are.
	Kept []string
	// UserKept are paths that differ from the target that only the user
	// changed: no recorded turn of a session of the work tree changed
	// them. They are left as they are.
	UserKept []string
	// Transcripts are the agent transcripts written back.
	Transcripts []Transcript

	head       plumbing.Hash
	headTree   plumbing.Hash
	target     *object.Tree
	candidates []string
	state      *session.State
	newest     *object.Commit // the session's newest step before the rewind
	// overwrites are paths changed by something other than Changes (the
	// `git reset --hard` of Reset), whose content the undo point saves.
	overwrites []string
	// logsOnly says the rewind leaves the work tree and the index alone:
	// its undo point holds the transcripts and notes only.
	logsOnly bool
}

// Result is what a rewind did.
type Result struct {
	// UndoPoint names the undo point recorded before any change (see
	// Rewinder.UndoPoints).
	UndoPoint string
	// Changes are the paths changed.
	Changes []FileChange
	// Transcripts are the transcripts written back.
	Transcripts []Transcript
}

// preflight checks that HEAD is a branch with commits and the index has
// nothing staged, and returns HEAD, its tree and the work tree's status.
func (r *Rewinder) preflight(ctx context.Context, needBranch bool) (plumbing.Hash, plumbing.Hash, []gitrepo.StatusEntry, error) {
	head, err := r.repo.Head()
	if err != nil {
		return head, plumbing.ZeroHash, nil, err
	}
	if head.IsZero() {
		return head, plumbing.ZeroHash, nil, fmt.Errorf("%w: make a first commit before rewinding", ErrNoCommits)
	}
	if needBranch {
		if b, err := r.repo.HeadBranch(); err != nil {
			return head, plumbing.ZeroHash, nil, err
		} else if b == "" {
			return head, plumbing.ZeroHash, nil, fmt.Errorf("%w at %s: check out the branch the session works on first", ErrDetachedHead, short(head.String()))
		}
	}
	c, err := r.repo.Git.CommitObject(head)
	if err != nil {
		return head, plumbing.ZeroHash, nil, fmt.Errorf("read HEAD: %w", err)
	}
	status, err := r.repo.Status(ctx)
	if err != nil {
		return head, plumbing.ZeroHash, nil, err
	}
	var staged []string
	for _, e := range status {
		if e.X != ' ' && e.X != '?' && e.X != '!' && !isProtected(e.Path) {
			staged = append(staged, e.Path)
		}
	}
	if len(staged) > 0 {
		return head, plumbing.ZeroHash, nil, fmt.Errorf("%w (%s): commit them or unstage them with `git restore --staged .` before rewinding", ErrStagedIndex, listPaths(staged))
	}
	return head, c.TreeHash, status, nil
}

func listPaths(ps []string) string {
	if len(ps) > 5 {
		return strings.Join(ps[:5], ", ") + fmt.Sprintf(" and %d more", len(ps)-5)
	}
	return strings.Join(ps, ", ")
}

// PlanRewind computes the rewind of the work tree and of the session's
// transcript to temporary point p. It changes nothing. Only paths that a
// recorded turn of some session of the work tree changed go back to p;
// those the user also edited after p are marked (OverwritesEdits), and
// the paths only the user changed are kept (UserKept). It fails, before
// anything is changed, on a detached HEAD, staged changes, a missing agent
// session directory, or paths that both this session and another live
// session of the work tree changed.
func (r *Rewinder) PlanRewind(ctx context.Context, p Point) (*Plan, error) {
	if p.IsLogsOnly {
		return nil, fmt.Errorf("%w: %s is a committed checkpoint; restore its logs (--logs-only) or reset to it (--reset)", ErrNotTemporary, p.Short())
	}
	head, headTree, status, err := r.preflight(ctx, true)
	if err != nil {
		return nil, err
	}
	st, err := r.sessions.Load(p.SessionID)
	if err != nil {
		return nil, fmt.Errorf("session %s of point %s: %w", p.SessionID, p.Short(), err)
	}
	tc, err := r.repo.Git.CommitObject(plumbing.NewHash(p.ID))
	if err != nil {
		return nil, fmt.Errorf("read checkpoint %s: %w", p.Short(), err)
	}
	target, err := tc.Tree()
	if err != nil {
		return nil, fmt.Errorf("read checkpoint %s: %w", p.Short(), err)
	}
	newestCommit, err := r.newestStep(p)
	if err != nil {
		return nil, err
	}
	var newest plumbing.Hash
	if newestCommit != nil {
		newest = newestCommit.TreeHash
	}
	cand := map[string]bool{}
	if err := diffTrees(r.repo, headTree, tc.TreeHash, cand); err != nil {
		return nil, err
	}
	if err := diffTrees(r.repo, headTree, newest, cand); err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	for _, e := range status {
		if !isProtected(e.Path) {
			cand[e.Path], listed[e.Path] = true, true
		}
	}
	owners, err := r.owners(p.SessionID)
	if err != nil {
		return nil, err
	}
	tip, after, err := r.since(p)
	if err != nil {
		return nil, err
	}
	mine := map[string]bool{}
	for _, f := range st.FilesTouched {
		mine[f] = true
	}
	hc, err := r.repo.Git.CommitObject(head)
	if err != nil {
		return nil, fmt.Errorf("read HEAD commit %s: %w", head, err)
	}
	ht, err := hc.Tree()
	if err != nil {
		return nil, fmt.Errorf("read HEAD commit %s tree %s: %w", head, hc.TreeHash, err)
	}
	var newestTree *object.Tree
	if !newest.IsZero() {
		if newestTree, err = r.repo.Git.TreeObject(newest); err != nil {
			return nil, fmt.Errorf("read the session's newest step: %w", err)
		}
	}
	plan := &Plan{Point: p, head: head, headTree: headTree, target: target, state: st, newest: newestCommit}
	var conflicts []string
	disk := newDiskReader(r.repo.Root)
	for _, path := range sortedSet(cand) {
		plan.candidates = append(plan.candidates, path)
		c, onDisk, ok, err := r.change(disk, path, lookup(target, path), ht, listed)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if o, theirs := owners.others[path]; theirs {
			switch {
			case !mine[path]:
				plan.Kept = append(plan.Kept, path)
				continue
			case !sameFile(onDisk, lookup(newestTree, path)):
				// Both sessions touched it and it changed after this
				// session's last step: the other session's edit.
				conflicts = append(conflicts, path+" (session "+o+")")
				continue
			}
		}
		if !owners.sessions[path] {
			plan.UserKept = append(plan.UserKept, path)
			continue
		}
		// Edited by hand after the newest checkpoint, or between turns
		// after the point.
		c.OverwritesEdits = !sameFile(onDisk, lookup(tip, path)) || owners.editedAfter(path, after)
		plan.Changes = append(plan.Changes, c)
	}
	if len(conflicts) > 0 {
		return nil, fmt.Errorf("%w: %s; nothing was changed. Let the other session commit or finish first", ErrConflict, listPaths(conflicts))
	}
	if t, ok := r.stepCut(target, p, st); ok {
		if err := requireDir(t.Path); err != nil {
			return nil, err
		}
		plan.Transcripts = append(plan.Transcripts, t)
		return plan, nil
	}
	data, chunks, err := r.stepTranscript(target, p)
	if err != nil {
		return nil, err
	}
	if data != nil {
		path, ag, err := r.transcriptTarget(p.SessionID, st, "", data)
		if err != nil {
			return nil, err
		}
		if err := requireDir(path); err != nil {
			return nil, err
		}
		t := Transcript{SessionID: p.SessionID, Path: path, Prompt: firstLine(st.FirstPrompt, 60), data: data, chunks: chunks}
		if ag != nil {
			t.ResumeCommand = ag.FormatResumeCommand(p.SessionID)
		}
		plan.Transcripts = append(plan.Transcripts, t)
	}
	return plan, nil
}

// change returns the change that brings path from its state on disk (as
// d reads it, returned too) to want, and false when there is none to
// make. A file that is neither in HEAD nor listed by git status (as
// untracked or added) is ignored by git and is never deleted.
func (r *Rewinder) change(d *diskReader, path string, want entry, head *object.Tree, listed map[string]bool) (FileChange, entry, bool, error) {
	disk, err := d.entry(path)
	if err != nil {
		return FileChange{}, disk, false, err
	}
	if sameFile(disk, want) {
		return FileChange{}, disk, false, nil
	}
	switch {
	case !want.Exists():
		if disk.Mode == filemode.Dir {
			return FileChange{}, disk, false, nil
		}
		if !listed[path] && !lookup(head, path).Exists() {
			return FileChange{}, disk, false, nil // gitignored
		}
		return FileChange{Path: path, Kind: Deleted}, disk, true, nil
	case disk.Exists() && disk.Mode != filemode.Dir:
		return FileChange{Path: path, Kind: Modified, want: want}, disk, true, nil
	default:
		return FileChange{Path: path, Kind: Added, want: want}, disk, true, nil
	}
}

// newestStep returns the newest step of p's session on p's branch (nil
// when there is none).
func (r *Rewinder) newestStep(p Point) (*object.Commit, error) {
	var newest *object.Commit
	err := r.walkBranch(p.Branch, func(c *object.Commit) bool {
		if checkpoint.ParseStep(c).SessionID == p.SessionID {
			newest = c
		}
		return newest == nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p.Branch, err)
	}
	return newest, nil
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Apply carries out a plan: it records an undo point, changes the work
// tree, writes the transcripts back, resets the sessions' transcript
// bookkeeping and, for a temporary point, records the rewind as a new step
// on the shadow branch (the branch tip never moves back).
func (r *Rewinder) Apply(ctx context.Context, plan *Plan) (*Result, error) {
	var err error
	info := undoInfo{what: "rewind to " + plan.Point.Short()}
	if plan.newest != nil && plan.state != nil {
		info.sessionID, info.step = plan.state.SessionID, plan.newest.Hash
	}
	notesThen := r.plannedNotes(plan)
	if info.notes, err = r.notesBefore(ctx, notesThen); err != nil {
		return nil, fmt.Errorf("record the notes (nothing was changed): %w", err)
	}
	name, err := r.recordUndo(ctx, plan, info)
	if err != nil {
		return nil, fmt.Errorf("record undo point (nothing was changed): %w", err)
	}
	res := &Result{UndoPoint: name, Transcripts: plan.Transcripts}
	err = applyChanges(r.repo, plan.Changes, func(c FileChange) {
		res.Changes = append(res.Changes, c)
		if c.Kind == Deleted {
			r.printf("  Deleted: %s\n", c.Path)
		} else {
			r.printf("  Restored: %s\n", c.Path)
		}
	})
	if err != nil {
		return res, fmt.Errorf("%w (undo with `entire rewind --undo`)", err)
	}
	if err := r.writeTranscripts(plan.Transcripts); err != nil {
		return res, err
	}
	if err := r.restoreNotes(ctx, notesThen); err != nil {
		return res, err
	}
	if plan.target != nil && plan.state != nil {
		subject := firstLine("Rewind to "+plan.Point.Short()+": "+plan.Point.Message, 72)
		if err := r.recordStep(ctx, plan.state, plan.headTree, plan.candidates, plan.target, subject, plan.Point.ID); err != nil {
			r.printf("Warning: could not record the rewind on %s: %v\n", plan.Point.Branch, err)
		}
	}
	return res, nil
}

// recordStep writes the rewound state as a new step of the session on its
// shadow branch, so that later steps and condensation start from it.
// The session's metadata is taken from the tree meta (the step whose
// transcript is now the session's). rewoundTo (the point restored, or
// "undo") marks the step as a rewind's: it is not a rewind point itself,
// so that rewinds never crowd the session's turns out of the list.
func (r *Rewinder) recordStep(ctx context.Context, st *session.State, headTree plumbing.Hash, paths []string, meta *object.Tree, subject, rewoundTo string) error {
	changes, err := r.repo.WorktreeChanges(paths)
	if err != nil {
		return err
	}
	dir := checkpoint.MetadataDirPrefix + st.SessionID
	if e, err := meta.FindEntry(dir); err == nil && e.Mode == filemode.Dir {
		changes = append(changes, gitrepo.Change{Path: dir, Mode: filemode.Dir, Hash: e.Hash})
	}
	_, err = checkpoint.WriteStep(ctx, r.repo, checkpoint.Step{
		Branch:   checkpoint.ShadowBranchName(st.BaseCommit, st.WorktreeID),
		BaseTree: headTree, Changes: changes, Snapshot: true,
		Message: checkpoint.RewindStepMessage(subject, dir, st.SessionID, checkpoint.StrategyManualCommit, rewoundTo),
	}, r.now())
	if errors.Is(err, checkpoint.ErrStepUnchanged) {
		return nil
	}
	return err
}

// PlanLogs computes the restore of a committed point's transcripts (every
// session of its checkpoint); the work tree is left alone, and not even
// looked at (no git status: on 100k files it cost more than the rest).
func (r *Rewinder) PlanLogs(ctx context.Context, p Point) (*Plan, error) {
	if !p.IsLogsOnly || p.CondensationID == "" {
		return nil, fmt.Errorf("%w: %s is a temporary checkpoint, it has no committed logs; rewind to it without --logs-only", ErrNotCommitted, p.Short())
	}
	head, err := r.repo.Head()
	if err != nil {
		return nil, err
	}
	hc, err := r.repo.Git.CommitObject(head)
	if err != nil {
		return nil, fmt.Errorf("read HEAD: %w", err)
	}
	ts, err := r.checkpointTranscripts(checkpoint.ID(p.CondensationID))
	if err != nil {
		return nil, err
	}
	return &Plan{Point: p, head: head, headTree: hc.TreeHash, Transcripts: ts, logsOnly: true}, nil
}

// Reset restores a committed point's transcripts and resets the branch to
// its commit (`git reset --hard`), after recording an undo point of the
// uncommitted files. It returns the commit HEAD was at before.
func (r *Rewinder) Reset(ctx context.Context, p Point) (*Result, plumbing.Hash, error) {
	if _, _, _, err := r.preflight(ctx, true); err != nil {
		return nil, plumbing.ZeroHash, err
	}
	plan, err := r.PlanLogs(ctx, p)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	plan.logsOnly = false // the reset changes the work tree
	if plan.candidates, plan.overwrites, err = r.resetOverwrites(ctx, p); err != nil {
		return nil, plumbing.ZeroHash, err
	}
	res, err := r.Apply(ctx, plan)
	if err != nil {
		return res, plan.head, err
	}
	if _, err := r.repo.RunGit(ctx, "reset", "--hard", "-q", p.ID); err != nil {
		return res, plan.head, fmt.Errorf("reset to %s: %w", p.Short(), err)
	}
	return res, plan.head, nil
}
