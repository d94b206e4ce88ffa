package rewind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/strategy/rewind/undostore"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// MaxPoints is how many points List returns (SPEC 6.1).
const MaxPoints = 20

// logsOnlyDepth is how many commits of HEAD's history List searches for
// committed checkpoints.
const logsOnlyDepth = 50

// ErrNotFound is returned (wrapped) by Find when no listed point matches.
var ErrNotFound = errors.New("rewind: point not found")

// Point is one place a rewind can go to. Its JSON form is the element of
// `entire rewind --list` (SPEC 6.1), exactly those keys.
type Point struct {
	// ID is the full commit hash: a shadow commit for a temporary point,
	// the user's commit for a logs-only point.
	ID string `json:"id"`
	// Message is the commit subject.
	Message string `json:"message"`
	// MetadataDir is the session (or task) metadata dir of a temporary
	// point, "" for a logs-only point.
	MetadataDir string `json:"metadata_dir"`
	// Date is the author date, RFC 3339.
	Date string `json:"date"`
	// IsTaskCheckpoint marks a subagent (task) step.
	IsTaskCheckpoint bool `json:"is_task_checkpoint"`
	// ToolUseID is the task's whole tool use ID (task points only; the
	// message has its first 12 characters), for final and incremental task
	// checkpoints alike.
	ToolUseID string `json:"tool_use_id,omitempty"`
	// IsLogsOnly marks a committed checkpoint: only its transcripts can be
	// restored.
	IsLogsOnly bool `json:"is_logs_only"`
	// CondensationID is the committed checkpoint ID (logs-only points).
	CondensationID string `json:"condensation_id,omitempty"`
	// SessionID is the step's session (temporary points) or the last
	// session of the checkpoint (logs-only points).
	SessionID string `json:"session_id,omitempty"`
	// SessionPrompt is the session's first prompt.
	SessionPrompt string `json:"session_prompt,omitempty"`

	// Branch is the shadow branch of a temporary point.
	Branch string `json:"-"`
	// When is Date as a time.
	When time.Time `json:"-"`
}

// Short returns the first seven characters of the point's ID.
func (p Point) Short() string { return short(p.ID) }

func short(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

// Options configures a Rewinder. Repo and Sessions are required.
type Options struct {
	Repo     *gitrepo.Repo
	Sessions *session.Store
	// Now is the clock for undo points and rewind steps; nil means
	// time.Now.
	Now func() time.Time
	// Progress receives one line per file changed and other notes meant
	// for a person; nil discards them.
	Progress io.Writer
}

// Rewinder lists and restores rewind points of one repository. It is not
// safe for concurrent use.
type Rewinder struct {
	repo     *gitrepo.Repo
	sessions *session.Store
	now      func() time.Time
	out      io.Writer
	undo     *undostore.Store // opened by undoStore
}

// New returns a Rewinder over opts.
func New(opts Options) *Rewinder {
	r := &Rewinder{repo: opts.Repo, sessions: opts.Sessions, now: opts.Now, out: opts.Progress}
	if r.now == nil {
		r.now = time.Now
	}
	if r.out == nil {
		r.out = io.Discard
	}
	return r
}

// printf reports progress. What rewind and resume print names paths,
// session IDs, refs and errors that may come from a teammate's checkpoint
// or a remote's answer, so the line is escaped (iostreams.Printf).
func (r *Rewinder) printf(format string, a ...any) { iostreams.Printf(r.out, format, a...) }

// turnFinishWait bounds how long a rewind waits for turn ends that are
// being finished in the background (their steps are rewind points).
const turnFinishWait = 5 * time.Second

// settle waits for turn ends finishing in the background; past the bound
// the rewind goes on with the steps as they are.
func (r *Rewinder) settle() {
	if err := r.sessions.AwaitTurnFinishes(turnFinishWait); err != nil {
		r.printf("Warning: %v\n", err)
	}
}

// List returns the rewind points of HEAD, newest first, at most MaxPoints:
// the steps on the shadow branches of the sessions of this work tree based
// on HEAD (the turns: steps that record a rewind or an undo are not points
// of their own), and HEAD's recent commits linked to a committed
// checkpoint. A repository without commits has none.
func (r *Rewinder) List(ctx context.Context) ([]Point, error) {
	return r.points(ctx, MaxPoints)
}

// points is List with at most limit points (0: every step of the shadow
// branches, as Find searches them).
func (r *Rewinder) points(ctx context.Context, limit int) ([]Point, error) {
	r.settle()
	head, err := r.repo.Head()
	if err != nil || head.IsZero() {
		return nil, err
	}
	sums, _, err := r.sessions.Find(session.Query{WorktreePath: r.repo.Root})
	if err != nil {
		return nil, err
	}
	prompts := map[string]string{}
	byBranch := map[string]map[string]bool{}
	var branches []string
	for _, s := range sums {
		if s.BaseCommit != head.String() {
			continue
		}
		prompts[s.SessionID] = s.FirstPrompt
		b := checkpoint.ShadowBranchName(s.BaseCommit, s.WorktreeID)
		if byBranch[b] == nil {
			byBranch[b] = map[string]bool{}
			branches = append(branches, b)
		}
		byBranch[b][s.SessionID] = true
	}
	var pts []Point
	for _, b := range branches {
		steps, err := r.stepPoints(b, byBranch[b], prompts, limit)
		if err != nil {
			return nil, err
		}
		pts = append(pts, steps...)
	}
	logs, err := r.logsOnlyPoints(head)
	if err != nil {
		return nil, err
	}
	pts = append(pts, logs...)
	seen := map[string]bool{}
	out := pts[:0]
	for _, p := range pts {
		if !seen[p.ID] {
			seen[p.ID] = true
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].When.After(out[j].When) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// stepPoints walks a shadow branch from its tip and returns the steps of
// the given sessions that are turns (not rewinds): up to 5×limit commits,
// the whole branch when limit is 0.
func (r *Rewinder) stepPoints(branch string, sessions map[string]bool, prompts map[string]string, limit int) ([]Point, error) {
	tip, err := r.repo.ReadRef(checkpoint.ShadowRef(branch))
	if err != nil || tip.IsZero() {
		return nil, err
	}
	var pts []Point
	h := tip
	for i := 0; (limit == 0 || len(pts) < limit && i < 5*limit+50*MaxPoints) && !h.IsZero(); i++ {
		c, err := r.repo.Git.CommitObject(h)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", branch, err)
		}
		info := checkpoint.ParseStep(c)
		if sessions[info.SessionID] && info.MetadataDir != "" && info.RewoundTo == "" {
			p := Point{
				ID: c.Hash.String(), Message: info.Subject, MetadataDir: info.MetadataDir,
				Date: c.Author.When.Format(time.RFC3339), When: c.Author.When,
				IsTaskCheckpoint: info.IsTask, ToolUseID: info.ToolUseID, SessionID: info.SessionID,
				SessionPrompt: prompts[info.SessionID], Branch: branch,
			}
			pts = append(pts, p)
		}
		h = plumbing.ZeroHash
		if len(c.ParentHashes) > 0 {
			h = c.ParentHashes[0]
		}
	}
	return pts, nil
}

// logsOnlyPoints returns HEAD's recent commits whose Entire-Checkpoint
// trailer names a checkpoint on the metadata branch. A checkpoint that
// cannot be read gets a warning line on Progress, naming it.
func (r *Rewinder) logsOnlyPoints(head plumbing.Hash) ([]Point, error) {
	store := checkpoint.NewStore(r.repo, r.now)
	iter, err := r.repo.Git.Log(&git.LogOptions{From: head, Order: git.LogOrderCommitterTime})
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	defer iter.Close()
	var pts []Point
	n := 0
	err = iter.ForEach(func(c *object.Commit) error {
		if n++; n > logsOnlyDepth {
			return errStop
		}
		id, ok := checkpoint.CheckpointOf(c.Message)
		if !ok {
			return nil
		}
		cp, err := store.Read(id)
		if errors.Is(err, checkpoint.ErrNotFound) {
			return nil // not on the metadata branch (not fetched)
		}
		if err != nil {
			r.printf("Warning: commit %s links %v (see `entire doctor`)\n", short(c.Hash.String()), err)
			return nil
		}
		subject, _, _ := strings.Cut(c.Message, "\n")
		last := cp.Sessions[len(cp.Sessions)-1]
		p := Point{
			ID: c.Hash.String(), Message: subject, Date: c.Author.When.Format(time.RFC3339), When: c.Author.When,
			IsLogsOnly: true, CondensationID: string(id), SessionID: last.Metadata.SessionID,
			// An auto-commit task checkpoint says so in its metadata.
			IsTaskCheckpoint: last.Metadata.IsTask, ToolUseID: taskToolUseID(last.Metadata),
		}
		if ps := last.Prompts(); len(ps) > 0 {
			p.SessionPrompt = firstLine(ps[0], 100)
		}
		pts = append(pts, p)
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, fmt.Errorf("read history: %w", err)
	}
	return pts, nil
}

var errStop = errors.New("stop")

// rewoundToText names what a rewind step restored.
func rewoundToText(to string) string {
	if to == "undo" {
		return "it undid a rewind: the state before that rewind"
	}
	return short(to)
}

// taskToolUseID is the tool use ID of a task checkpoint's session, "" for
// any other.
func taskToolUseID(m checkpoint.SessionMetadata) string {
	if !m.IsTask {
		return ""
	}
	return m.ToolUseID
}

// firstLine collapses whitespace and cuts s to max runes plus "...".
func firstLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if rs := []rune(s); len(rs) > max {
		return string(rs[:max]) + "..."
	}
	return s
}

// Find returns the listed point whose ID is id or starts with id (at least
// seven characters), or whose committed checkpoint ID is id. It returns an
// error wrapping ErrNotFound, which says so when id is a checkpoint of
// another branch or base commit, and one wrapping checkpoint.ErrCorrupt
// when id (or the commit it names) links a checkpoint that cannot be read.
func (r *Rewinder) Find(ctx context.Context, id string) (Point, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	// Every turn of the sessions, not only the listed ones: a point listed
	// a moment ago stays reachable however many turns came since.
	pts, err := r.points(ctx, 0)
	if err != nil {
		return Point{}, err
	}
	var match []Point
	for _, p := range pts {
		if p.ID == id || (len(id) >= 7 && strings.HasPrefix(p.ID, id)) || (id != "" && p.CondensationID == id) {
			match = append(match, p)
		}
	}
	switch {
	case len(match) == 1:
		return match[0], nil
	case len(match) > 1 && match[0].ID == id:
		return match[0], nil
	case len(match) > 1:
		return Point{}, fmt.Errorf("rewind point %s is ambiguous (%d points match); give more characters", id, len(match))
	}
	if cid := checkpoint.ID(id); cid.Valid() {
		if _, err := checkpoint.NewStore(r.repo, r.now).Read(cid); err != nil && !errors.Is(err, checkpoint.ErrNotFound) {
			return Point{}, fmt.Errorf("%w (see `entire doctor`)", err)
		}
	}
	if len(id) >= 7 {
		if h, err := r.repo.Git.ResolveRevision(plumbing.Revision(id)); err == nil {
			if c, err := r.repo.Git.CommitObject(*h); err == nil {
				tr := checkpoint.ParseTrailers(c.Message)
				if cid, ok := tr.Checkpoint(); ok {
					if _, err := checkpoint.NewStore(r.repo, r.now).Read(cid); err != nil && !errors.Is(err, checkpoint.ErrNotFound) {
						return Point{}, fmt.Errorf("commit %s links %w (see `entire doctor`)", short(c.Hash.String()), err)
					}
				}
				if to := checkpoint.ParseStep(c).RewoundTo; to != "" && len(tr.Sessions()) > 0 {
					return Point{}, fmt.Errorf("%w: %s records a rewind, not a turn of its own; rewind to the point it restored instead (%s)", ErrNotFound, id, rewoundToText(to))
				}
				if _, ok := tr.Checkpoint(); ok || len(tr.Sessions()) > 0 {
					return Point{}, fmt.Errorf("%w: %s is a checkpoint of another branch or base commit, not of HEAD; check out the branch it belongs to first", ErrNotFound, id)
				}
			}
		}
	}
	return Point{}, fmt.Errorf("%w: %s (run `entire rewind --list` to see the points)", ErrNotFound, id)
}
