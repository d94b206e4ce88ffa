package strategy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/go-git/go-git/v5/plumbing"
)

// AutoCommit is the auto-commit strategy (SPEC 5.3): every agent turn that
// changed files becomes a commit on the current branch, carrying an
// Entire-Checkpoint trailer, and a committed checkpoint on the metadata
// branch written at once. It keeps no shadow branches and does not act on
// the user's own commits: it does not implement GitHooks.
type AutoCommit struct {
	env *Env
	// mc lends its transcript storage, scanning and redaction, which
	// work the same for both strategies (it holds the same env).
	mc *ManualCommit
}

var _ Strategy = (*AutoCommit)(nil)

// NewAutoCommit returns the auto-commit strategy over env.
func NewAutoCommit(env *Env) *AutoCommit { return &AutoCommit{env: env, mc: NewManualCommit(env)} }

// Name returns "auto-commit".
func (a *AutoCommit) Name() string { return checkpoint.StrategyAutoCommit }

// SessionStart applies the SessionStart event to an existing session. An
// auto-commit session never holds work that a later commit could include,
// so it reports no other sessions.
func (a *AutoCommit) SessionStart(ctx context.Context, in TurnInput) (int, error) {
	if in.SessionID == "" {
		return 0, errors.New("session start: no session_id in hook input")
	}
	err := a.env.Sessions.Update(in.SessionID, func(st *session.State, exists bool) error {
		if !exists {
			return errNoChange
		}
		a.env.transition(st, session.EventSessionStart, session.TransitionContext{})
		return nil
	})
	if err != nil && !errors.Is(err, errNoChange) {
		return 0, err
	}
	return 0, nil
}

// SessionEnd marks the session ended.
func (a *AutoCommit) SessionEnd(ctx context.Context, in TurnInput) error {
	err := a.env.Sessions.Update(in.SessionID, func(st *session.State, exists bool) error {
		if !exists {
			return errNoChange
		}
		a.env.transition(st, session.EventSessionStop, session.TransitionContext{})
		now := a.env.Now().UTC()
		st.EndedAt = &now
		return nil
	})
	if errors.Is(err, errNoChange) {
		return nil
	}
	return err
}

// TurnStart creates or refreshes the session state (base commit, turn ID,
// agent, transcript path, first prompt) and records the untracked files
// from the hook's one git status, so that the turn end can tell which
// files the agent created.
func (a *AutoCommit) TurnStart(ctx context.Context, in TurnInput) error {
	repo := a.env.Repo
	head, err := repo.Head()
	if err != nil {
		return err
	}
	if head.IsZero() {
		return nil
	}
	// As ManualCommit.TurnStart: before the untracked-file list, which
	// hooks re-installed inside the work tree must not join.
	a.env.ensureSetup(ctx)
	ws, err := readStatus(ctx, repo)
	if err != nil {
		return err
	}
	untracked := ws.Untracked
	if left, err := session.ReadPrePrompt(repo.Root, in.SessionID); err == nil && left != nil {
		// A turn whose files were not committed (deferred, or its turn end
		// never ran): its new files still count as new.
		untracked = left.UntrackedFiles
	}
	var cursor checkpointCursor
	err = a.env.Sessions.Update(in.SessionID, func(st *session.State, exists bool) error {
		if !exists || st.BaseCommit == "" {
			a.initState(st, in, head, ws)
		}
		a.env.transition(st, session.EventTurnStart, session.TransitionContext{})
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
		st.TurnCheckpointIDs = nil
		cursor = cursorOf(st)
		return nil
	})
	if err != nil {
		return fmt.Errorf("start turn: %w", err)
	}
	return session.WritePrePrompt(repo.Root, &session.PrePrompt{
		SessionID: in.SessionID, Timestamp: a.env.Now(), UntrackedFiles: untracked,
		StepTranscriptStart: cursor.Entries, LastTranscriptIdentifier: cursor.LastID,
	})
}

// initState fills a new auto-commit session state.
func (a *AutoCommit) initState(st *session.State, in TurnInput, head plumbing.Hash, ws *worktreeStatus) {
	now := a.env.Now().UTC()
	st.CLIVersion = a.env.CLIVersion
	st.BaseCommit, st.AttributionBaseCommit = head.String(), head.String()
	st.WorktreePath, st.WorktreeID = a.env.Repo.Root, a.env.Repo.WorktreeID
	st.StartedAt = now
	st.LastInteractionTime = &now
	st.UntrackedFilesAtStart = ws.Untracked
	if st.Phase == "" {
		st.Phase = session.PhaseIdle
	}
	if in.Agent != nil {
		st.AgentType = string(in.Agent.Type())
	}
}

// TurnEnd commits the files the turn changed to the current branch and
// writes the turn's committed checkpoint, then ends the turn. A turn that
// changed nothing makes neither. Its cost is that of the new transcript
// lines and of the changed paths: one git status, one update-ref and one
// update-index.
func (a *AutoCommit) TurnEnd(ctx context.Context, in TurnInput) error {
	repo := a.env.Repo
	head, err := a.env.turnEndHead(ctx, in)
	if err != nil {
		return err
	}
	pre, _ := session.ReadPrePrompt(repo.Root, in.SessionID)
	status := a.env.statusAtTurnEnd(ctx)
	// Each turn is a commit: the hook waits for the whole transcript.
	from, _ := a.env.turnStartCursor(in.SessionID)
	a.env.awaitTurnEnd(ctx, in, from)
	ws, err := status()
	if err != nil {
		return err
	}
	deferred := false
	err = a.env.Sessions.Update(in.SessionID, func(st *session.State, exists bool) error {
		deferred = false
		if !exists || st.BaseCommit == "" {
			a.initState(st, in, head, ws)
			st.Phase = session.PhaseActive
			st.TurnID = session.NewTurnID()
		}
		if in.TranscriptPath != "" {
			st.TranscriptPath = in.TranscriptPath
		}
		an := a.mc.scan(in, cursorOf(st))
		untrackedBefore := st.UntrackedFilesAtStart
		if pre != nil {
			untrackedBefore = pre.UntrackedFiles
		}
		files := changedOnly(unionSorted(transcriptFiles(repo, in.Cwd, an.ModifiedFiles), ws.newFiles(untrackedBefore), ws.Deleted), ws.Dirty)
		subject := defaultSubject
		if len(an.Prompts) > 0 {
			subject = CommitSubject(a.env.Redactor.Text(an.Prompts[len(an.Prompts)-1])) // redacted before it is cut
		}
		if reason := a.commitBlocked(); reason != "" && len(files) > 0 {
			// Keep the cursor: the next turn end picks these files up again.
			a.env.printf("Skipped checkpoint: %s\n", reason)
			a.env.transition(st, session.EventTurnEnd, session.TransitionContext{})
			deferred = true
			return nil
		}
		if err := a.saveStep(ctx, st, in, head, an, files, subject); err != nil {
			return err
		}
		setCursor(st, an.To)
		a.env.transition(st, session.EventTurnEnd, session.TransitionContext{})
		st.TurnCheckpointIDs = nil
		return nil
	})
	if err != nil {
		return fmt.Errorf("end turn: %w", err)
	}
	if deferred {
		return nil // keep the untracked files of the turn start
	}
	if err := session.DeletePrePrompt(repo.Root, in.SessionID); err != nil {
		a.env.Log.Warn("delete pre-prompt state", "error", err)
	}
	return nil
}

// saveStep makes the code commit of a step and its committed checkpoint.
func (a *AutoCommit) saveStep(ctx context.Context, st *session.State, in TurnInput, head plumbing.Hash, an *agent.Analysis, files []string, subject string) error {
	if len(files) == 0 {
		a.env.printf("Skipped checkpoint (no changes since last commit)\n")
		return nil
	}
	// The transcript is stored first: once the commit is made, only the
	// metadata commit is left to fail.
	ts, err := a.mc.storeTranscript(st, in)
	if err == nil {
		ts, err = a.mc.underCurrentRules(st, ts)
	}
	if err != nil {
		return err
	}
	id := a.env.checkpoints().NewID()
	commit, err := a.commitCode(ctx, head, files, subject, id)
	if err != nil {
		return err
	}
	if commit.IsZero() {
		a.env.printf("Skipped checkpoint (no changes since last commit)\n")
		return nil
	}
	a.env.printf("Committed code changes to active branch (%s)\n", commit.String()[:7])
	st.ShadowTranscript = ts
	prompts := a.mc.redactAll(an.Prompts)
	summary := a.env.Redactor.Text(an.LastAssistant)
	meta := a.metadata(st, an, files)
	w := checkpoint.SessionWrite{
		Metadata: meta, Transcript: ts, Prompts: joinPrompts(prompts),
		Context: stepContext(st.SessionID, subject, prompts, summary, a.mc.redactTools(an.ToolUses)),
	}
	if summary != "" {
		w.Files = map[string][]byte{checkpoint.SummaryFile: []byte(summary)}
	}
	if _, err := a.env.checkpoints().WriteSession(ctx, id, w, checkpoint.CommitInfo{}); err != nil {
		return fmt.Errorf("commit %s has checkpoint %s but its metadata was not written: %w", commit.String()[:7], id, err)
	}
	where := checkpoint.MetadataBranch
	if id.IsULID() {
		where = string(id.RefName())
	}
	a.env.printf("Committed session metadata to %s (%s)\n", where, id)
	a.recordCheckpoint(st, id, commit)
	return nil
}

// metadata is the session metadata of one auto-commit checkpoint: one
// step, this step's files and tokens, the transcript offset where the
// step began.
func (a *AutoCommit) metadata(st *session.State, an *agent.Analysis, files []string) checkpoint.SessionMetadata {
	branch, _ := a.env.Repo.HeadBranch()
	meta := checkpoint.SessionMetadata{
		CLIVersion: a.env.CLIVersion, SessionID: st.SessionID, Strategy: checkpoint.StrategyAutoCommit,
		Branch: branch, CheckpointsCount: 1, FilesTouched: files,
		Agent: agent.AgentType(st.AgentType), TurnID: st.TurnID,
		TranscriptIdentifierAtStart: an.From.LastID,
		CheckpointTranscriptStart:   an.From.Entries,
		TranscriptLinesAtStart:      an.From.Entries,
		TranscriptPath:              homeRelative(st.TranscriptPath),
	}
	if !an.Tokens.IsZero() {
		tokens := an.Tokens
		meta.TokenUsage = &tokens
	}
	return meta
}

// recordCheckpoint notes a written checkpoint in the session state: the
// session now hangs off the new commit, has nothing left to condense, and
// counts one more checkpoint (SPEC 2.6 stop, step 8).
func (a *AutoCommit) recordCheckpoint(st *session.State, id checkpoint.ID, commit plumbing.Hash) {
	st.BaseCommit, st.AttributionBaseCommit = commit.String(), commit.String()
	st.LastCheckpointID = id.String()
	st.CheckpointCount++
	st.FilesTouched = nil
	if st.ShadowTranscript != nil {
		st.CheckpointTranscriptStart = st.ShadowTranscript.Lines
	}
}

// commitBlocked returns why no commit may be made on the current branch
// now ("" when one may): git is in the middle of a merge, rebase,
// cherry-pick or revert, whose own commit would then be wrong.
func (a *AutoCommit) commitBlocked() string {
	gitDir := a.env.Repo.GitDir
	if session.SequenceOperationInProgress(gitDir) {
		return "a rebase, cherry-pick or revert is in progress"
	}
	if _, err := os.Lstat(filepath.Join(gitDir, "MERGE_HEAD")); err == nil {
		return "a merge is in progress"
	}
	return ""
}

// changedOnly keeps the paths that git status reports as differing from
// HEAD: a file the transcript says was written but that ended up as it was
// has nothing to commit.
func changedOnly(paths, dirty []string) []string {
	set := make(map[string]bool, len(dirty))
	for _, p := range dirty {
		set[p] = true
	}
	var out []string
	for _, p := range paths {
		if set[p] {
			out = append(out, p)
		}
	}
	return out
}
