package strategy

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/condensed"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/renderrefs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// turnInput rebuilds the agent input of a session from its state, for work
// done outside its own hooks (a commit).
func (m *ManualCommit) turnInput(st *session.State) TurnInput {
	in := TurnInput{SessionID: st.SessionID, TranscriptPath: st.TranscriptPath}
	if a, err := agent.GetByAgentType(agent.AgentType(st.AgentType)); err == nil {
		in.Agent = a
	} else {
		in.Agent = agent.Default()
	}
	return in
}

// PostCommit condenses the sessions whose work the new commit includes onto
// the metadata branch under the commit's Entire-Checkpoint ID (SPEC 5.2.4),
// carries forward what the commit left out, and removes the shadow
// branches that are done. Without a trailer it only moves the active
// sessions onto the new HEAD. A linked commit is first marked as pending
// (see CompletePending), and the mark is removed once every session is
// done: a post-commit killed in between is completed by the next hook.
func (m *ManualCommit) PostCommit(ctx context.Context) error {
	repo := m.env.Repo
	head, err := repo.Head()
	if err != nil || head.IsZero() {
		return err
	}
	commit, err := repo.Git.CommitObject(head)
	if err != nil {
		return fmt.Errorf("read HEAD commit: %w", err)
	}
	id, linked := m.ownLink(commit) // a trailer from elsewhere links for reading only
	if !linked {
		for _, s := range m.recentSessions() {
			if s.Phase != session.PhaseActive || s.BaseCommit == head.String() {
				continue
			}
			err := m.env.Sessions.Update(s.SessionID, func(st *session.State, _ bool) error {
				return m.migrate(ctx, st, head)
			})
			if err != nil {
				m.env.Log.Warn("move session to new HEAD", "session_id", s.SessionID, "error", err)
			}
		}
		return nil
	}
	if m.env.CondenseLater != nil && m.storingAbove(head, condenseLaterAbove) {
		// The trailer mark leads CompletePending to this commit, in the
		// process started here or in whatever reads or pushes the
		// checkpoints first.
		m.markTrailer(id)
		err := m.env.CondenseLater()
		if err == nil {
			m.env.Log.Info("post-commit: a turn end is still being stored; condensing in the background", "checkpoint_id", id.String())
			m.env.printf("[entire] Checkpoint %s is being written in the background (a large turn is still being stored)\n", id)
			return nil
		}
		m.env.Log.Warn("post-commit: cannot condense in the background; condensing now", "error", err)
	}
	m.env.Prewarm() // condensation redacts what it stores
	mark := m.markPending(head, id)
	m.dropTrailerMark(id)
	if err := m.condenseCommit(ctx, commit, id); err != nil {
		return nil // said and logged per session; the mark stays for the next hook
	}
	if mark != nil {
		if err := mark.Release(); err != nil {
			m.env.Log.Warn("remove pending condensation mark", "error", err)
		}
	}
	return nil
}

// condenseLaterAbove is the transcript a session's pending turn ends
// still have to store from which post-commit condenses in the background
// (see Env.CondenseLater): waiting for them would cost the commit about a
// second for every 40 MB (finishGrace).
const condenseLaterAbove = 16 << 20

// storingAbove reports whether a recent session that the commit at head
// condenses has pending turn ends with more than limit bytes of
// transcript still to store.
func (m *ManualCommit) storingAbove(head plumbing.Hash, limit int64) bool {
	for _, s := range m.recentSessions() {
		if s.PendingTurnEnds == 0 || s.BaseCommit == head.String() {
			continue
		}
		st, err := m.env.Sessions.Load(s.SessionID)
		if err != nil || len(st.TurnEnds) == 0 {
			continue
		}
		if st.TurnEnds[len(st.TurnEnds)-1].Size-cursorOf(st).Offset > limit {
			return true
		}
	}
	return false
}

// condenseCommit applies the commit to every recent session of the work
// tree not already on it, condensing those whose work it includes under
// checkpoint id, then deletes the shadow branches no session uses any
// more. It returns the first session's failure (each is logged and said).
func (m *ManualCommit) condenseCommit(ctx context.Context, commit *object.Commit, id checkpoint.ID) error {
	repo := m.env.Repo
	seq := session.SequenceOperationInProgress(repo.GitDir)
	var condensedBranches []string
	var first error
	for _, s := range m.recentSessions() {
		if s.BaseCommit == commit.Hash.String() {
			continue // already on this commit (amend of a linked commit)
		}
		if s.PendingTurnEnds > 0 {
			// The session's last steps are what the commit is compared
			// with (its work, the attribution).
			m.SettleTurnEnds(ctx, s.SessionID)
		}
		var branch string
		err := m.env.Sessions.Update(s.SessionID, func(st *session.State, exists bool) error {
			if !exists {
				return errNoChange
			}
			b, err := m.commitEvent(ctx, st, id, commit, seq)
			branch = b
			return err
		})
		if err != nil && err != errNoChange {
			m.env.Log.Warn("condense session", "session_id", s.SessionID, "error", err)
			m.env.printf("[entire] could not condense session %s: %v\n", short8(s.SessionID), err)
			if first == nil {
				first = fmt.Errorf("condense session %s: %w", s.SessionID, err)
			}
		}
		if branch != "" {
			condensedBranches = append(condensedBranches, branch)
		}
	}
	for _, b := range unionSorted(condensedBranches) {
		if m.branchInUse(b, "") {
			continue
		}
		tip, _ := repo.ReadRef(checkpoint.ShadowRef(b))
		if err := repo.DeleteRef(ctx, checkpoint.ShadowRef(b), tip); err != nil {
			m.env.Log.Warn("delete shadow branch", "branch", b, "error", err)
			continue
		}
		m.env.printf("[entire] Cleaned up shadow branch: %s\n", b)
	}
	return first
}

// commitEvent applies the GitCommit event to one session and, when the
// commit includes its work, condenses it. It returns the shadow branch it
// condensed ("" when none).
func (m *ManualCommit) commitEvent(ctx context.Context, st *session.State, id checkpoint.ID, commit *object.Commit, seq bool) (string, error) {
	actions := m.transition(st, session.EventGitCommit, session.TransitionContext{
		HasFilesTouched: len(st.FilesTouched) > 0, SequenceOperation: seq,
	})
	for _, a := range actions {
		switch a {
		case session.ActionCondense, session.ActionCondenseIfFilesTouched:
			if !m.commitIncludesWork(st, commit) {
				m.moveBase(st, commit.Hash)
				return "", nil
			}
			branch := shadowBranch(st)
			if err := m.condense(ctx, st, id, commit); err != nil {
				return "", err
			}
			return branch, nil
		case session.ActionDiscardIfNoFiles:
			m.moveBase(st, commit.Hash)
		}
	}
	return "", nil
}

// moveBase puts a session whose work the commit did not include on the new
// HEAD.
func (m *ManualCommit) moveBase(st *session.State, head plumbing.Hash) {
	if err := m.migrate(context.Background(), st, head); err != nil {
		m.env.Log.Warn("move session base", "session_id", st.SessionID, "error", err)
	}
}

// commitIncludesWork reports whether the commit holds the session's work
// (see holdsWork); when it cannot tell, it keeps the link.
func (m *ManualCommit) commitIncludesWork(st *session.State, commit *object.Commit) bool {
	ok, err := m.holdsWork(st, func(paths []string) (map[string]committedFile, error) {
		return m.commitChanges(commit, paths)
	})
	if err != nil {
		m.env.Log.Warn("compare the commit with the session's work", "session_id", st.SessionID, "error", err)
		return true
	}
	return ok
}

// entryOf is entryHash during a condensation, which looks up the same
// paths in the same trees (attribution, the line records) and many paths
// in trees that share subtrees (the steps of a shadow branch): each tree
// is decoded once (go-git decodes every tree of a path again on each
// FindEntry) and each answer kept.
func (m *ManualCommit) entryOf(t *object.Tree, path string) plumbing.Hash {
	if t == nil || m.entries == nil {
		return entryHash(t, path)
	}
	k := treePath{t.Hash, path}
	if h, ok := m.entries[k]; ok {
		return h
	}
	m.trees[t.Hash] = t
	h := m.walk(t, path)
	m.entries[k] = h
	return h
}

// walk finds path in t a component at a time through the decoded trees
// the condensation keeps; like entryHash, ZeroHash for a directory or
// nothing.
func (m *ManualCommit) walk(t *object.Tree, path string) plumbing.Hash {
	parts := strings.Split(path, "/")
	for i, name := range parts {
		e, err := t.FindEntry(name)
		if err != nil {
			return plumbing.ZeroHash
		}
		if i == len(parts)-1 {
			if e.Mode == filemode.Dir {
				return plumbing.ZeroHash
			}
			return e.Hash
		}
		if e.Mode != filemode.Dir {
			return plumbing.ZeroHash
		}
		sub, ok := m.trees[e.Hash]
		if !ok {
			if sub, err = m.env.Repo.Git.TreeObject(e.Hash); err != nil {
				return plumbing.ZeroHash
			}
			m.trees[e.Hash] = sub
		}
		t = sub
	}
	return plumbing.ZeroHash
}

// entryHash is the blob hash at path in t (ZeroHash when absent).
func entryHash(t *object.Tree, path string) plumbing.Hash {
	if t == nil {
		return plumbing.ZeroHash
	}
	e, err := t.FindEntry(path)
	if err != nil || e.Mode == filemode.Dir {
		return plumbing.ZeroHash
	}
	return e.Hash
}

// condense writes the session's checkpoint scope as session slot of
// checkpoint id and resets the session onto the new commit, carrying
// forward the touched files the commit left out (SPEC 5.2.5).
func (m *ManualCommit) condense(ctx context.Context, st *session.State, id checkpoint.ID, commit *object.Commit) error {
	m.texts, m.entries, m.trees = map[plumbing.Hash]cachedText{}, map[treePath]plumbing.Hash{}, map[plumbing.Hash]*object.Tree{}
	defer func() { m.texts, m.entries, m.trees, m.prefetched = nil, nil, nil, nil }()
	repo := m.env.Repo
	in := m.turnInput(st)
	branch := shadowBranch(st)
	tip, err := repo.ReadRef(checkpoint.ShadowRef(branch))
	if err != nil {
		return err
	}
	ts := st.ShadowTranscript
	if st.TranscriptPath != "" {
		if _, statErr := os.Stat(st.TranscriptPath); statErr == nil {
			if ts, err = m.storeTranscript(st, in); err != nil {
				return err
			}
		}
	}
	stored := ts
	if ts, err = m.underCurrentRules(st, ts); err != nil {
		return err
	}
	m.noteRewritten(st.SessionID, stored, ts)
	a := m.scanScope(in, st)
	var earlier []string
	if st.CheckpointCount > 0 && !tip.IsZero() {
		// Stored by earlier steps, under the rules of their time.
		earlier = m.redactAll(readShadowPrompts(repo, tip, st.SessionID))
	}
	// Every prompt of the session so far (SPEC 5.2.5), as 0.4.x stores
	// them: the previous checkpoint's, then the scope's.
	before := m.promptsBefore(st, a.From)
	prompts := append(before, a.prompts(earlier, m.redactAll(a.Prompts))...)
	files := m.env.dropIgnored(ctx, unionSorted(st.FilesTouched, transcriptFiles(repo, "", a.ModifiedFiles)), nil)
	usage := a.tokens(st.TokenUsage)
	branchName, _ := repo.HeadBranch()
	meta := checkpoint.SessionMetadata{
		CLIVersion: m.env.CLIVersion, SessionID: st.SessionID, Strategy: checkpoint.StrategyManualCommit,
		Branch: branchName, CheckpointsCount: st.CheckpointCount, FilesTouched: files,
		Agent: agent.AgentType(st.AgentType), TurnID: st.TurnID,
		TranscriptIdentifierAtStart: st.TranscriptIdentifierAtStart,
		CheckpointTranscriptStart:   st.CheckpointTranscriptStart,
		TranscriptLinesAtStart:      st.CheckpointTranscriptStart,
		TranscriptPath:              homeRelative(st.TranscriptPath),
	}
	if !usage.IsZero() {
		meta.TokenUsage = usage
	}
	cc := m.changesOf(st, commit)
	if cc != nil {
		m.prefetched = m.prefetchTexts(cc, tip, files)
	}
	lines := m.lineFileAsync(id, st, tip, commit, files, prompts, len(before))
	if cc != nil && !tip.IsZero() {
		meta.InitialAttribution = m.attribution(st, tip, commit, files, cc)
	}
	// A commit that keeps an earlier commit's trailer (`git commit --amend`
	// after more agent work) is condensed into the same checkpoint: merge
	// with the slot it already has rather than replace it.
	prompts = m.mergePreviousSlot(id, &meta, prompts)
	linkFiles, linkTrees := m.slotLinks(ctx, st)
	extras, taskKeys := m.slotExtras(st.SessionID)
	scopeStart := condensed.Scope(meta.CheckpointTranscriptStart, meta.TranscriptLinesAtStart)
	if c := m.condensedFile(st.SessionID, ts, scopeStart, ts != stored); c != nil {
		extras = mergeFiles(extras, map[string][]byte{condensed.File: c})
	}
	extras = mergeFiles(extras, <-lines)
	slot := -1 // written by the interrupted condensation this one completes
	if !m.slotWritten(id, st.SessionID) {
		slot, err = m.env.checkpoints().WriteSession(ctx, id, checkpoint.SessionWrite{
			Metadata: meta, Transcript: ts, Prompts: joinPrompts(prompts), Context: condensedContext(prompts),
			Files: mergeFiles(linkFiles, extras), Trees: linkTrees,
		}, checkpoint.CommitInfo{EphemeralBranch: branch})
		if err != nil {
			return err
		}
	}
	m.dropSlotExtras(st.SessionID, taskKeys)
	m.pruneLog(st.SessionID, scopeStart)
	m.env.Log.Info("condensed session", "session_id", st.SessionID, "checkpoint_id", id.String(), "slot", slot)
	m.env.printf("[entire] Condensed session %s: %s (%d checkpoints)\n", short8(st.SessionID), id, st.CheckpointCount)

	remaining := m.remainingWork(st, files, tip, commit)
	if len(st.TurnEnds) > 0 {
		// Not finished in time: their transcript lines are in this
		// checkpoint, their work trees in the commit.
		m.env.Log.Warn("turn ends condensed before their steps were written", "session_id", st.SessionID, "count", len(st.TurnEnds))
		st.TurnEnds = nil
	}
	st.ShadowTranscript = ts
	setCursor(st, a.To)
	st.BaseCommit, st.AttributionBaseCommit = commit.Hash.String(), commit.Hash.String()
	st.CheckpointCount = 0
	// The next scope starts where this one ends, counted as the agent
	// counts positions (lines, or a Gemini document's messages).
	if a.To.Entries > 0 {
		st.CheckpointTranscriptStart = a.To.Entries
	} else if ts != nil {
		st.CheckpointTranscriptStart = ts.Lines
	}
	st.FilesTouched = nil
	st.Changes = st.Changes.Condensed(remaining)
	st.TokenUsage = nil
	st.PromptAttributions, st.PendingPromptAttribution = nil, nil
	st.LastCheckpointID = id.String()
	if st.Phase == session.PhaseActive {
		st.TurnCheckpointIDs = append(st.TurnCheckpointIDs, id.String())
	}
	if len(remaining) > 0 {
		m.carryForward(ctx, st, commit, remaining)
	}
	return nil
}

// remainingWork returns the session's files (files: those it touched and
// those its transcript modified in the scope) whose agent changes the
// commit may not have taken whole, for carryForward to check against the
// work tree: all but the touched files the commit holds as the shadow
// snapshot does. Without a shadow branch (the commit came before the
// session's first turn end) that is every file: the ones the commit left
// out stay pending, and a later commit of them is linked too.
func (m *ManualCommit) remainingWork(st *session.State, files []string, tip plumbing.Hash, commit *object.Commit) []string {
	if len(files) == 0 || commit.Hash == tip {
		return nil // condensed against its own snapshot (CondenseSession)
	}
	var shadowTree *object.Tree
	if !tip.IsZero() {
		shadow, err := m.env.Repo.Git.CommitObject(tip)
		if err != nil {
			return nil
		}
		if shadowTree, err = shadow.Tree(); err != nil {
			return nil
		}
	}
	headTree, err := commit.Tree()
	if err != nil {
		return nil
	}
	touched := make(map[string]bool, len(st.FilesTouched))
	for _, f := range st.FilesTouched {
		touched[f] = true
	}
	var out []string
	for _, f := range files {
		// A touched file is in the shadow snapshot (present, or absent as
		// the agent deleted it); any other file's state there says nothing.
		if shadowTree != nil && touched[f] && entryHash(shadowTree, f) == entryHash(headTree, f) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// carryForward records the remaining files on the new commit's shadow
// branch, so that a later commit of them is linked too. Files the user
// discarded before committing (deleted, or back to the committed content)
// leave nothing to link and are dropped.
func (m *ManualCommit) carryForward(ctx context.Context, st *session.State, commit *object.Commit, remaining []string) {
	repo := m.env.Repo
	changes, err := repo.WorktreeChanges(remaining)
	if err == nil {
		changes, err = pendingChanges(commit, changes)
	}
	if err == nil && len(changes) == 0 {
		st.FilesTouched, st.CheckpointCount = nil, 0
		return
	}
	if err == nil {
		_, err = checkpoint.WriteStep(ctx, repo, checkpoint.Step{
			Branch: shadowBranch(st), BaseTree: commit.TreeHash, Changes: changes, Snapshot: true,
			Message: checkpoint.StepMessage("carry forward: uncommitted session files", "", st.SessionID, checkpoint.StrategyManualCommit),
		}, m.env.Now())
	}
	if err != nil && err != checkpoint.ErrStepUnchanged {
		m.env.Log.Warn("carry forward", "session_id", st.SessionID, "error", err)
		return
	}
	st.FilesTouched = make([]string, 0, len(changes))
	for _, c := range changes {
		st.FilesTouched = append(st.FilesTouched, c.Path)
	}
	st.CheckpointCount = 1
}

// pendingChanges keeps the work-tree changes that differ from commit's
// tree: a deletion of a path the commit has, or content or a mode it does
// not hold.
func pendingChanges(commit *object.Commit, changes []gitrepo.Change) ([]gitrepo.Change, error) {
	tree, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("read tree of %s: %w", commit.Hash, err)
	}
	out := changes[:0]
	for _, c := range changes {
		e, err := tree.FindEntry(c.Path)
		inCommit := err == nil && e.Mode != filemode.Dir
		if c.Delete && !inCommit || !c.Delete && inCommit && e.Hash == c.Hash && e.Mode == c.Mode {
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// finalizeTurnCheckpoints replaces the transcript of the checkpoints
// condensed during this turn (the agent committed before the turn ended)
// with the transcript as it is at the end of the turn (SPEC 5.2.6).
func (m *ManualCommit) finalizeTurnCheckpoints(ctx context.Context, st *session.State, in TurnInput) {
	if len(st.TurnCheckpointIDs) == 0 {
		return
	}
	ts := st.ShadowTranscript
	rewritten := false
	var refs []renderrefs.Reference
	if in.TranscriptPath != "" {
		src, err := m.readTranscript(st, in)
		if err == nil {
			ts, err = m.storeSource(st, src)
			refs = src.refs
			src.close()
		}
		stored := ts
		if err == nil {
			ts, err = m.underCurrentRules(st, ts)
		}
		if err != nil {
			m.env.Log.Warn("finalize transcript", "error", err)
			return
		}
		m.noteRewritten(st.SessionID, stored, ts)
		rewritten = ts != stored
		st.ShadowTranscript = ts
	}
	store := m.env.checkpoints()
	for _, raw := range st.TurnCheckpointIDs {
		id, err := checkpoint.ParseID(raw)
		if err != nil {
			continue
		}
		cp, err := store.Read(id)
		if err != nil {
			m.env.Log.Warn("finalize transcript", "checkpoint_id", raw, "error", err)
			continue
		}
		for _, sess := range cp.Sessions {
			if sess.Metadata.SessionID != st.SessionID {
				continue
			}
			prompt, _ := sess.File(checkpoint.PromptFile)
			ctxFile, _ := sess.File(checkpoint.ContextFile)
			keptFiles, keptTrees := keptLinks(m.env.Repo, sess)
			files, trees := m.keptSlotExtras(sess, refs)
			if c := m.condensedFile(st.SessionID, ts, condensed.Scope(sess.Metadata.CheckpointTranscriptStart, sess.Metadata.TranscriptLinesAtStart), rewritten); c != nil {
				files = mergeFiles(files, map[string][]byte{condensed.File: c})
			}
			_, err := store.WriteSession(ctx, id, checkpoint.SessionWrite{
				Metadata: sess.Metadata, Transcript: ts, Prompts: string(prompt), Context: string(ctxFile),
				Files: mergeFiles(keptFiles, files), Trees: mergeTrees(keptTrees, trees),
			}, checkpoint.CommitInfo{Message: "Finalize transcript for Checkpoint: " + raw})
			if err != nil {
				m.env.Log.Warn("finalize transcript", "checkpoint_id", raw, "error", err)
			}
		}
	}
	st.TurnCheckpointIDs = nil
}

// homeRelative returns path relative to $HOME (SPEC 3.7 transcript_path),
// or "" when it is not below it, as Entire 0.4.x stores it: 0.4.x joins
// the stored path to $HOME to restore it, so an absolute one would send
// the transcript to $HOME/<absolute path>.
func homeRelative(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || !filepath.IsAbs(path) {
		return ""
	}
	rel, err := filepath.Rel(home, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

func short8(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// CondenseSession forces the condensation of a session's temporary
// checkpoints onto the metadata branch under checkpoint id, which no
// commit references (`entire doctor`). The session then has no pending
// steps, is idle, keeps its base commit, and records id as its last
// checkpoint; its shadow branch is deleted when no other session uses it.
// It fails, changing nothing, when the session does not exist
// NewCheckpointID returns a fresh ID for a checkpoint of the layout the
// settings name: a ULID for git-refs, 12 hex characters for git-branch.
func (m *ManualCommit) NewCheckpointID() checkpoint.ID { return m.env.checkpoints().NewID() }

// (session.ErrNotFound), has no checkpoints, or its shadow branch is gone.
func (m *ManualCommit) CondenseSession(ctx context.Context, sessionID string, id checkpoint.ID) error {
	repo := m.env.Repo
	var branch string
	var tip plumbing.Hash
	err := m.env.Sessions.Update(sessionID, func(st *session.State, exists bool) error {
		if !exists {
			return fmt.Errorf("%w: %s", session.ErrNotFound, sessionID)
		}
		if st.CheckpointCount == 0 {
			return fmt.Errorf("session %s has no checkpoints to condense", sessionID)
		}
		branch = shadowBranch(st)
		var err error
		if tip, err = repo.ReadRef(checkpoint.ShadowRef(branch)); err != nil {
			return err
		}
		if tip.IsZero() {
			return fmt.Errorf("session %s: shadow branch %s not found", sessionID, branch)
		}
		// Condensing against the shadow tip itself: the "commit" takes the
		// whole snapshot, so nothing is carried forward.
		tc, err := repo.Git.CommitObject(tip)
		if err != nil {
			return fmt.Errorf("read shadow branch %s: %w", branch, err)
		}
		base := st.BaseCommit
		if err := m.condense(ctx, st, id, tc); err != nil {
			return err
		}
		st.BaseCommit, st.AttributionBaseCommit = base, base
		st.Phase = session.PhaseIdle
		st.TurnCheckpointIDs = nil
		st.CheckpointCount, st.FilesTouched = 0, nil
		return nil
	})
	if err != nil {
		return fmt.Errorf("condense session %s: %w", sessionID, err)
	}
	if !m.branchInUse(branch, "") {
		if err := repo.DeleteRef(ctx, checkpoint.ShadowRef(branch), tip); err != nil {
			m.env.Log.Warn("delete shadow branch", "branch", branch, "error", err)
		}
	}
	return nil
}

// mergeFiles joins the extra files of a slot from several sources.
func mergeFiles(maps ...map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// mergeTrees joins the grafted subtrees of a slot from several sources.
func mergeTrees(maps ...map[string]plumbing.Hash) map[string]plumbing.Hash {
	out := map[string]plumbing.Hash{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}
