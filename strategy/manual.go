package strategy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ManualCommit is the default strategy: a temporary checkpoint on a shadow
// branch after every turn, condensed onto the metadata branch when the user
// commits.
type ManualCommit struct {
	env *Env
	// resumeAfter, when set, is the time of a commit whose interrupted
	// condensation is being completed: a session slot of its checkpoint
	// written since was written by the interrupted run (see slotWritten).
	resumeAfter time.Time
	// texts caches the blobs a condensation reads as text (attribution
	// and the line records read the same versions); nil outside one.
	texts map[plumbing.Hash]cachedText
	// prefetched holds the texts a condensation read before it split in
	// two (prefetchTexts); read-only, shared by both halves.
	prefetched map[plumbing.Hash]cachedText
	// entries caches the path lookups of a condensation, by tree and path.
	entries map[treePath]plumbing.Hash
	trees   map[plumbing.Hash]*object.Tree
}

// treePath is a path in a tree.
type treePath struct {
	tree plumbing.Hash
	path string
}

// cachedText is a blob read as text: false for binary content.
type cachedText struct {
	text string
	ok   bool
}

var (
	_ Strategy = (*ManualCommit)(nil)
	_ GitHooks = (*ManualCommit)(nil)
)

// NewManualCommit returns the manual-commit strategy over env.
func NewManualCommit(env *Env) *ManualCommit { return &ManualCommit{env: env} }

// Name returns "manual-commit".
func (m *ManualCommit) Name() string { return checkpoint.StrategyManualCommit }

// shadowBranch is the shadow branch of a session's current base commit.
func shadowBranch(st *session.State) string {
	return checkpoint.ShadowBranchName(st.BaseCommit, st.WorktreeID)
}

// metadataDir is where a session's metadata lives in a shadow tree.
func metadataDir(sessionID string) string { return checkpoint.MetadataDirPrefix + sessionID }

// SessionStart applies the SessionStart event to an existing session and
// counts the other sessions on this worktree and base commit that have
// checkpoints.
func (m *ManualCommit) SessionStart(ctx context.Context, in TurnInput) (int, error) {
	if in.SessionID == "" {
		return 0, errors.New("session start: no session_id in hook input")
	}
	err := m.env.Sessions.Update(in.SessionID, func(st *session.State, exists bool) error {
		if !exists {
			return errNoChange
		}
		m.transition(st, session.EventSessionStart, session.TransitionContext{})
		return nil
	})
	if err != nil && !errors.Is(err, errNoChange) {
		return 0, err
	}
	head, _ := m.env.Repo.Head()
	sums, _, err := m.env.Sessions.Find(session.Query{WorktreePath: m.env.Repo.Root, ExcludeEnded: true})
	if err != nil {
		return 0, err
	}
	others := 0
	for _, s := range sums {
		if s.SessionID != in.SessionID && s.BaseCommit == head.String() && s.FilesTouched > 0 {
			others++
		}
	}
	return others, nil
}

// errNoChange tells session.Store.Update not to save.
var errNoChange = errors.New("no change")

// SessionEnd marks the session ended.
func (m *ManualCommit) SessionEnd(ctx context.Context, in TurnInput) error {
	err := m.env.Sessions.Update(in.SessionID, func(st *session.State, exists bool) error {
		if !exists {
			return errNoChange
		}
		m.transition(st, session.EventSessionStop, session.TransitionContext{})
		now := m.env.Now().UTC()
		st.EndedAt = &now
		return nil
	})
	if errors.Is(err, errNoChange) {
		return nil
	}
	return err
}

// transition applies a state-machine event and its bookkeeping actions
// (the condensation actions are the caller's).
func (m *ManualCommit) transition(st *session.State, ev session.Event, tc session.TransitionContext) []session.Action {
	return m.env.transition(st, ev, tc)
}

// transition is shared by the strategies; see ManualCommit.transition.
func (e *Env) transition(st *session.State, ev session.Event, tc session.TransitionContext) []session.Action {
	phase, actions := session.Transition(st.Phase, ev, tc)
	st.Phase = phase
	now := e.Now().UTC()
	for _, a := range actions {
		switch a {
		case session.ActionClearEndedAt:
			st.EndedAt = nil
		case session.ActionUpdateLastInteraction:
			st.LastInteractionTime = &now
		case session.ActionWarnStaleSession:
			e.Log.Warn("session start for a session that is still active", "session_id", st.SessionID)
		}
	}
	return actions
}

// TurnStart records the state before a prompt runs: the untracked files
// and the state of the dirty ones (from the hook's one git status), the
// user's edits since the last checkpoint (recordUserEdits) and the
// transcript position, and starts or continues the session. It never reads
// the transcript.
func (m *ManualCommit) TurnStart(ctx context.Context, in TurnInput) error {
	repo := m.env.Repo
	head, err := repo.Head()
	if err != nil {
		return err
	}
	if head.IsZero() {
		return nil // no commit yet: nothing to hang checkpoints on
	}
	// Re-install missing git hooks before taking the untracked-file list:
	// with core.hooksPath inside the work tree (husky's .husky/, a team's
	// .githooks/) the files it writes would otherwise count as new files
	// of the agent's turn.
	m.env.ensureSetup(ctx)
	ws, err := readStatus(ctx, repo)
	if err != nil {
		return err
	}
	var cursor checkpointCursor
	var dirty map[string]session.PathState
	pending := false
	err = m.env.Sessions.Update(in.SessionID, func(st *session.State, exists bool) error {
		pending = len(st.TurnEnds) > 0
		now := m.env.Now().UTC()
		if !exists || st.BaseCommit == "" {
			st.CLIVersion = m.env.CLIVersion
			st.BaseCommit, st.AttributionBaseCommit = head.String(), head.String()
			st.WorktreePath, st.WorktreeID = repo.Root, repo.WorktreeID
			st.StartedAt = now
			st.UntrackedFilesAtStart = ws.Untracked
			st.CheckpointCount = 0
			m.env.printf("Initialized shadow session: %s\n", in.SessionID)
		} else if st.BaseCommit != head.String() {
			if err := m.migrate(ctx, st, head); err != nil {
				return err
			}
		}
		m.transition(st, session.EventTurnStart, session.TransitionContext{})
		st.TurnID = session.NewTurnID()
		if in.Agent != nil && (st.AgentType == "" || st.AgentType == "Agent") {
			st.AgentType = string(in.Agent.Type())
		}
		if st.FirstPrompt == "" {
			st.FirstPrompt = firstPrompt(in.Prompt)
		}
		if in.TranscriptPath != "" {
			st.TranscriptPath = in.TranscriptPath
		}
		st.LastCheckpointID = ""
		st.TurnCheckpointIDs = nil
		cursor = cursorOf(st)
		if disk, err := m.recordUserEdits(st, head, ws); err != nil {
			// The turn end then cannot tell the turn's changes from
			// earlier ones; its step still records what it can.
			m.env.Log.Warn("measure the user's edits", "session_id", st.SessionID, "error", err)
		} else {
			dirty = prePromptDirty(disk)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("start turn: %w", err)
	}
	pre := &session.PrePrompt{
		SessionID: in.SessionID, Timestamp: m.env.Now(), UntrackedFiles: ws.Untracked,
		StepTranscriptStart: cursor.Entries, LastTranscriptIdentifier: cursor.LastID,
	}
	if dirty != nil {
		pre.Head, pre.Dirty = head.String(), dirty
	}
	if err := session.WritePrePrompt(repo.Root, pre); err != nil {
		return err
	}
	m.env.printf("Captured state before prompt: %d untracked files, transcript at entry %d\n", len(ws.Untracked), cursor.Entries)
	if pending && m.env.FinishLater != nil {
		// Turn ends whose process was killed: started again, not waited
		// for.
		if err := m.env.FinishLater(in.SessionID); err != nil {
			m.env.Log.Warn("turn end: cannot finish in the background", "error", err)
		}
	}
	return nil
}

// migrate moves a session's shadow branch to HEAD when HEAD moved without
// a condensation (pull, rebase, an agent's own git commands): the new
// branch starts at the old tip (SPEC 5.2.7).
func (m *ManualCommit) migrate(ctx context.Context, st *session.State, head plumbing.Hash) error {
	repo := m.env.Repo
	oldName := shadowBranch(st)
	st.BaseCommit = head.String()
	newName := shadowBranch(st)
	if oldName == newName {
		return nil
	}
	tip, err := repo.ReadRef(checkpoint.ShadowRef(oldName))
	if err != nil {
		return err
	}
	// A session with no steps and no touched files has nothing of its own
	// on the old branch: whatever is there belongs to other sessions
	// sharing it. Copying it would leave a stale shadow branch on the new
	// HEAD (e.g. after a commit that condensed only the other sessions).
	if st.CheckpointCount == 0 && len(st.FilesTouched) == 0 {
		tip = plumbing.ZeroHash
	}
	if tip.IsZero() {
		m.env.printf("Updated session base commit to %s (HEAD changed during session)\n", head.String()[:7])
		return nil
	}
	if cur, _ := repo.ReadRef(checkpoint.ShadowRef(newName)); cur.IsZero() {
		if err := repo.UpdateRef(checkpoint.ShadowRef(newName), tip, plumbing.ZeroHash); err != nil && !errors.Is(err, gitrepo.ErrRefChanged) {
			return err
		}
	}
	if !m.branchInUse(oldName, st.SessionID) {
		if err := repo.DeleteRef(ctx, checkpoint.ShadowRef(oldName), tip); err != nil {
			m.env.Log.Warn("delete old shadow branch", "branch", oldName, "error", err)
		}
	}
	m.env.printf("Moved shadow branch from %s to %s (HEAD changed during session)\n", oldName, newName)
	return nil
}

// branchInUse reports whether a session other than except still holds a
// shadow branch (session.Summary.HoldsShadowBranch).
func (m *ManualCommit) branchInUse(branch, except string) bool {
	sums, _, err := m.env.Sessions.Find(session.Query{WorktreePath: m.env.Repo.Root})
	if err != nil {
		return true
	}
	for _, s := range sums {
		if s.SessionID == except || s.BaseCommit == "" {
			continue
		}
		if s.HoldsShadowBranch() && checkpoint.ShadowBranchName(s.BaseCommit, s.WorktreeID) == branch {
			return true
		}
	}
	return false
}
