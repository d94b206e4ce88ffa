package strategy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/lockfile"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The trailer of a commit is fixed before its post-commit hook condenses
// the sessions onto the metadata branch. So that a post-commit killed in
// between (SIGKILL, OOM, Ctrl-C, power loss) never leaves a trailer that
// points to nothing, the hook first creates <git-dir>/entire-pending/
// <commit>-<checkpoint ID>, a lock file (lockfile) recording its owner,
// and removes it once done. Every later hook and the commands that read
// checkpoints complete a pending condensation whose owner is gone
// (CompletePending). One that cannot be completed becomes the record
// <commit>-<checkpoint ID>.failed, which `entire doctor` reports.

//
// A post-commit killed before it made its mark, or never started, is
// covered by the mark prepare-commit-msg leaves when it adds a new
// trailer: trailer-<checkpoint ID>, a plain file (its writer exits at
// once). Post-commit removes it once its own mark exists. CompletePending
// looks for the commit of a trailer mark among HEAD's recent first
// parents: found, its condensation is completed like a marked one; not
// found, the commit is still being written (an editor is open) or was
// abandoned, and the mark is dropped after trailerMarkTTL.

// pendingDirName is the directory of the marks, in the work tree's git
// directory (the sessions condensed are those of its work tree).
const pendingDirName = "entire-pending"

// trailerPrefix starts the name of a trailer mark.
const trailerPrefix = "trailer-"

// trailerMarkTTL is how long a trailer mark whose commit is not found is
// kept: a commit message edited for longer is not linked after all
// (abandoned).
const trailerMarkTTL = 24 * time.Hour

// trailerSearchDepth is how many of HEAD's first parents are searched for
// a trailer mark's commit (commits made since it was marked).
const trailerSearchDepth = 20

// failedSuffix names the record of a condensation that cannot be completed.
const failedSuffix = ".failed"

// Errors of a pending condensation that cannot be completed.
var (
	// ErrCommitGone: the commit no longer exists (reset away and pruned).
	ErrCommitGone = errors.New("strategy: the commit no longer exists")
	// ErrNoCheckpoint: no session of the work tree held work of the commit
	// (its state or data is gone), so its trailer names no checkpoint.
	ErrNoCheckpoint = errors.New("strategy: no session data was left to condense, the trailer names no checkpoint")
)

// Pending is a condensation a post-commit hook began and did not finish.
type Pending struct {
	// Commit is the commit's hash.
	Commit string `json:"commit"`
	// CheckpointID is the ID of its trailer.
	CheckpointID checkpoint.ID `json:"checkpoint_id,omitempty"`
	// Err is why it could not be completed; nil when it was completed.
	Err error `json:"-"`
	// Reason is Err's text in a .failed record.
	Reason string `json:"reason,omitempty"`
}

func pendingDir(repo *gitrepo.Repo) string { return filepath.Join(repo.GitDir, pendingDirName) }

// markName is the name of the mark of a commit's condensation.
func markName(commit string, id checkpoint.ID) string { return commit + "-" + id.String() }

// parseMark returns the commit and checkpoint ID a mark's name holds.
func parseMark(name string) (string, checkpoint.ID, bool) {
	commit, raw, _ := strings.Cut(name, "-")
	id, err := checkpoint.ParseID(raw)
	return commit, id, err == nil && plumbing.IsHash(commit)
}

// markPending marks commit as being condensed under id by this process;
// nil when it cannot (logged): the condensation then goes on unmarked.
func (m *ManualCommit) markPending(commit plumbing.Hash, id checkpoint.ID) *lockfile.Lock {
	dir := pendingDir(m.env.Repo)
	err := os.MkdirAll(dir, 0o755)
	var lock *lockfile.Lock
	if err == nil {
		lock, err = lockfile.Acquire(filepath.Join(dir, markName(commit.String(), id)), lockfile.Options{OnBreak: m.env.Repo.LockBroken})
	}
	if err != nil {
		m.env.Log.Warn("mark condensation as pending", "commit", commit.String(), "error", err)
		return nil
	}
	return lock
}

// markTrailer records that a new trailer names checkpoint id; logged
// when it cannot.
func (m *ManualCommit) markTrailer(id checkpoint.ID) {
	dir := pendingDir(m.env.Repo)
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		err = atomicfile.Write(filepath.Join(dir, trailerPrefix+id.String()), nil, 0o644)
	}
	if err != nil {
		m.env.Log.Warn("mark a new trailer", "checkpoint_id", id.String(), "error", err)
	}
}

// dropTrailerMark removes the trailer mark of id (done with, or taken over
// by a commit's mark).
func (m *ManualCommit) dropTrailerMark(id checkpoint.ID) {
	err := os.Remove(filepath.Join(pendingDir(m.env.Repo), trailerPrefix+id.String()))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		m.env.Log.Warn("remove trailer mark", "checkpoint_id", id.String(), "error", err)
	}
}

// trailerCommit returns the commit among HEAD's recent first parents whose
// message carries checkpoint id (nil when none).
func (m *ManualCommit) trailerCommit(id checkpoint.ID) *object.Commit {
	head, err := m.env.Repo.Head()
	if err != nil || head.IsZero() {
		return nil
	}
	c, err := m.env.Repo.Git.CommitObject(head)
	for i := 0; err == nil && i < trailerSearchDepth; i++ {
		if got, ok := checkpoint.CheckpointOf(c.Message); ok && got == id {
			return c
		}
		if c.NumParents() == 0 {
			return nil
		}
		c, err = c.Parent(0)
	}
	return nil
}

// HasPending reports whether a condensation is marked pending in the work
// tree of repo (one directory read; none when the directory is missing).
func HasPending(repo *gitrepo.Repo) bool {
	entries, _ := os.ReadDir(pendingDir(repo))
	for _, e := range entries {
		if _, _, ok := parseMark(e.Name()); ok || strings.HasPrefix(e.Name(), trailerPrefix) {
			return true
		}
	}
	return false
}

// CompletePending completes the condensations of env's work tree that a
// post-commit hook marked pending and did not finish, its owner being
// gone (a mark held by a live process, such as a post-commit still
// running, is left to it). Each runs what the post-commit would have run
// for its commit, once: a session already moved onto the commit is
// skipped, and a session slot the interrupted run wrote is not written
// again. It returns the condensations it looked at; Err says why one could
// not be completed. When the metadata branch or a session stays locked
// the mark stays, for the next hook; otherwise (the commit is gone, no
// checkpoint could be written) it becomes a .failed record for `entire
// doctor` (FailedPending). Safe to call from any number of processes.
func CompletePending(ctx context.Context, env *Env) []Pending {
	return CompletePendingWait(ctx, env, 0)
}

// CompletePendingWait is CompletePending that waits, at most wait for
// each, for the condensations a live process is completing (a post-commit,
// or the process it started to condense in the background): what reads or
// pushes checkpoints needs them done, where an agent's hook goes on.
func CompletePendingWait(ctx context.Context, env *Env, wait time.Duration) []Pending {
	dir := pendingDir(env.Repo)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	m := NewManualCommit(env)
	// The marks to complete: those of commits, and those a trailer mark
	// leads to (its post-commit never made one). A trailer mark may lead
	// to a commit's mark that exists too: one mark, which drops the
	// trailer mark.
	var marks []string
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			marks = append(marks, name)
		}
	}
	for _, e := range entries {
		if raw, ok := strings.CutPrefix(e.Name(), trailerPrefix); ok {
			if name, ok := m.followTrailerMark(raw); ok {
				add(name)
			}
		} else if _, _, ok := parseMark(e.Name()); ok {
			add(e.Name())
		} else if path := filepath.Join(dir, e.Name()); lockfile.RemoveLeftover(path) {
			env.Log.Info("removed a killed process's leftover lock file", "path", path)
		}
	}
	var out []Pending
	for _, name := range marks {
		commit, id, _ := parseMark(name)
		path := filepath.Join(dir, name)
		_, serr := os.Stat(path)
		held, broken := serr == nil, false
		lock, err := lockfile.Acquire(path, lockfile.Options{Timeout: wait, OnBreak: func(p, reason string) {
			broken = true
			env.Repo.LockBroken(p, reason)
		}})
		if err != nil {
			continue // a post-commit, or another hook, is at it
		}
		if held && !broken {
			// Its holder completed it and let go while this process
			// waited.
			m.dropTrailerMark(id)
			_ = lock.Release()
			continue
		}
		// The commit's mark stands for the trailer mark now, found
		// through it or not (a post-commit killed between making its mark
		// and dropping the trailer's leaves both; once the commit is
		// reset away, the trailer mark leads nowhere).
		m.dropTrailerMark(id)
		p, keep := m.completePending(ctx, commit, id)
		switch {
		case p.Err == nil:
			env.Log.Info("completed an interrupted condensation", "commit", p.Commit, "checkpoint_id", p.CheckpointID.String())
		case keep:
			env.Log.Warn("complete an interrupted condensation, later", "commit", p.Commit, "error", p.Err)
			continue // the mark stays, stale once this process exits
		default:
			env.Log.Warn("cannot complete an interrupted condensation", "commit", p.Commit, "error", p.Err)
			p.Reason = p.Err.Error()
			b, _ := json.Marshal(p)
			if err := atomicfile.Write(filepath.Join(dir, name+failedSuffix), b, 0o644); err != nil {
				env.Log.Warn("record a failed condensation", "commit", p.Commit, "error", err)
				continue
			}
		}
		if err := lock.Release(); err != nil {
			env.Log.Warn("remove pending condensation mark", "error", err)
		}
		out = append(out, p)
	}
	return out
}

// followTrailerMark settles the trailer mark of checkpoint raw: dropped
// when its checkpoint exists or the mark expired, kept while its commit is
// not found; when the commit exists and its checkpoint does not, it
// returns the name of the commit's mark, for the caller to complete.
func (m *ManualCommit) followTrailerMark(raw string) (string, bool) {
	id, err := checkpoint.ParseID(raw)
	if err != nil {
		_ = os.Remove(filepath.Join(pendingDir(m.env.Repo), trailerPrefix+raw))
		return "", false
	}
	if m.env.checkpoints().Exists(id) {
		m.dropTrailerMark(id)
		return "", false
	}
	commit := m.trailerCommit(id)
	if commit == nil {
		fi, err := os.Stat(filepath.Join(pendingDir(m.env.Repo), trailerPrefix+raw))
		if err == nil && m.env.Now().Sub(fi.ModTime()) > trailerMarkTTL {
			m.dropTrailerMark(id)
		}
		return "", false
	}
	return markName(commit.Hash.String(), id), true
}

// completePending runs the condensation of one commit under checkpoint
// id; keep reports a failure worth retrying (a lock held for long).
func (m *ManualCommit) completePending(ctx context.Context, hash string, id checkpoint.ID) (p Pending, keep bool) {
	p = Pending{Commit: hash, CheckpointID: id}
	commit, err := m.env.Repo.Git.CommitObject(plumbing.NewHash(hash))
	if err != nil {
		p.Err = ErrCommitGone
		return p, false
	}
	m.env.Prewarm()
	rm := *m
	rm.resumeAfter = commit.Committer.When
	if err := rm.condenseCommit(ctx, commit, id); err != nil {
		p.Err = err
		return p, errors.Is(err, gitrepo.ErrRefLocked) || errors.Is(err, session.ErrLockTimeout)
	}
	if !m.env.checkpoints().Exists(id) {
		p.Err = ErrNoCheckpoint
	}
	return p, false
}

// slotWritten reports whether the condensation being completed (see
// resumeAfter) had written the session's slot of checkpoint id before it
// was interrupted: a slot created since the commit. (A slot that an amend
// made within the same second is taken for it too.)
func (m *ManualCommit) slotWritten(id checkpoint.ID, sessionID string) bool {
	if m.resumeAfter.IsZero() {
		return false
	}
	cp, err := m.env.checkpoints().Read(id)
	if err != nil {
		return false
	}
	since := m.resumeAfter.Truncate(time.Second)
	for _, s := range cp.Sessions {
		if s.Metadata.SessionID == sessionID && !s.Metadata.CreatedAt.Before(since) {
			return true
		}
	}
	return false
}

// FailedPending returns the condensations of repo's work tree that could
// not be completed (see CompletePending), sorted by commit hash.
func FailedPending(repo *gitrepo.Repo) []Pending {
	entries, _ := os.ReadDir(pendingDir(repo))
	var out []Pending
	for _, e := range entries {
		mark, ok := strings.CutSuffix(e.Name(), failedSuffix)
		commit, id, valid := parseMark(mark)
		if !ok || !valid {
			continue
		}
		p := Pending{}
		if b, err := os.ReadFile(filepath.Join(pendingDir(repo), e.Name())); err == nil {
			_ = json.Unmarshal(b, &p)
		}
		p.Commit, p.CheckpointID, p.Err = commit, id, errors.New(p.Reason)
		out = append(out, p)
	}
	return out
}

// DropFailed forgets a failed condensation (once reported).
func DropFailed(repo *gitrepo.Repo, p Pending) error {
	if !plumbing.IsHash(p.Commit) || !p.CheckpointID.Valid() {
		return fmt.Errorf("drop failed condensation: bad commit %q or checkpoint %q", p.Commit, p.CheckpointID)
	}
	err := os.Remove(filepath.Join(pendingDir(repo), markName(p.Commit, p.CheckpointID)+failedSuffix))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
