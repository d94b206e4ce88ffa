package strategy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/panics"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// A turn end is saved in two halves, so that the agent waits for what the
// change costs and not for what the transcript costs:
//
//   - TurnEnd, while the agent waits, records the work tree as it stands:
//     the hook's one git status, the changed files stored as blobs, their
//     tree written, and a session.PendingTurnEnd saved with the state.
//     Nothing of the transcript is read.
//   - FinishTurnEnds, afterwards, writes each pending turn end's step in
//     order: the turn's transcript lines (up to the next turn's first
//     prompt, see agent.TurnScanner) analysed, redacted and stored, and the
//     step commit that joins them with the recorded work tree. A hook
//     starts it in a process of its own (Env.FinishLater), which holds the
//     session's finish lock while it runs; without one, TurnEnd runs it at
//     once.
//
// Whatever reads or writes the session's steps first settles its pending
// turn ends (SettleTurnEnds): it waits for the finishing process and
// finishes what is left itself (one that was killed). A turn start does
// not wait: it compares the work tree with the newest recorded tree,
// written or pending (latestTree).

// A finisher runs at the lowest priority (proc.LowerPriority), so that it
// never slows the hooks the agent waits on; on a busy machine it can then
// be starved for minutes. What needs its steps does not wait that long: it
// waits as long as the finisher needs on an idle machine (finishGrace) and
// then writes the steps itself, beside it. The two cannot both write a
// step: each applies a step only while its pending turn end is still the
// first (under the session's lock), so the slower one finds it gone and
// stops.

// finishGraceBase and finishGraceRate give finishGrace: a fixed part, and
// the time the backlog of transcript bytes takes at the rate a finisher
// reads, redacts and stores them on one idle core.
const (
	finishGraceBase = 500 * time.Millisecond
	finishGraceRate = 40 << 20 // bytes per second
)

// finishGrace is how long a caller waits for the process finishing the
// session's turn ends before it finishes them itself: what the transcript
// bytes still to store (up to the newest pending turn end) take an
// unstarved finisher.
func finishGrace(st *session.State) time.Duration {
	backlog := int64(0)
	if n := len(st.TurnEnds); n > 0 {
		backlog = st.TurnEnds[n-1].Size - cursorOf(st).Offset
	}
	if backlog < 0 {
		backlog = 0
	}
	return finishGraceBase + time.Duration(float64(backlog)/finishGraceRate*float64(time.Second))
}

// finishRetries bounds how often a finisher prepares a step again because
// the session's stored transcript moved while it worked.
const finishRetries = 3

// newPendingID names a pending turn end.
func newPendingID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// transcriptSize is the size of the transcript file (0 when it is not
// there yet).
func transcriptSize(path string) int64 {
	if path == "" {
		return 0
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// TurnEnd ends the turn and records the work tree as it stands for the
// turn's step (see above): it costs the hook's git status and the files
// that changed, whatever the size of the transcript. The step itself is
// written by FinishTurnEnds.
func (m *ManualCommit) TurnEnd(ctx context.Context, in TurnInput) error {
	repo := m.env.Repo
	// A transcript the agent has not created yet is waited for (bounded);
	// one that never comes fails the hook, which then saves nothing.
	head, err := m.env.turnEndHead(ctx, in)
	if err != nil {
		return err
	}
	size := transcriptSize(in.TranscriptPath)
	pre, _ := session.ReadPrePrompt(repo.Root, in.SessionID)
	ws, err := readStatus(ctx, repo)
	if err != nil {
		return err
	}
	hc, err := repo.Git.CommitObject(head)
	if err != nil {
		return fmt.Errorf("read HEAD commit: %w", err)
	}
	err = m.env.Sessions.Update(in.SessionID, func(st *session.State, exists bool) error {
		if in.TranscriptPath != "" {
			st.TranscriptPath = in.TranscriptPath
		}
		if !exists || st.BaseCommit == "" {
			m.initState(st, in, head, ws)
		} else if st.BaseCommit != head.String() {
			if err := m.migrate(ctx, st, head); err != nil {
				return err
			}
		}
		untrackedBefore := st.UntrackedFilesAtStart
		if pre != nil {
			untrackedBefore = pre.UntrackedFiles
		}
		prevCache := st.SnapshotCache
		snap, err := m.snapshot(st, ws)
		if err != nil {
			return err
		}
		tree, err := m.workTree(st, hc, snap, prevCache)
		if err != nil {
			return fmt.Errorf("record the work tree: %w", err)
		}
		turn, known := m.turnChanges(pre, head, ws, snap)
		// A file the turn changed and committed (the agent's own git
		// commit) is in HEAD, not in a step's snapshot.
		reported := statusPaths(pre, ws)
		stepFiles := m.env.dropIgnored(ctx, unionSorted(ws.newFiles(untrackedBefore), ws.Deleted, changedOnly(turn, reported)), reported)
		if !known {
			turn = stepFiles
		}
		rec := changeRecord(st)
		rec.Turns = unionSorted(rec.Turns, turn)
		p := session.PendingTurnEnd{
			ID: newPendingID(), TurnID: st.TurnID, Time: m.env.Now(), Head: head.String(), Tree: tree.String(),
			Files: stepFiles, Agent: string(in.Agent.Name()), TranscriptPath: in.TranscriptPath, Cwd: in.Cwd, Size: size,
			FinalAnswer: in.End.FinalAnswer, HasFinalAnswer: in.End.HasFinalAnswer,
			Attribution: st.PendingPromptAttribution, CheckpointIDs: st.TurnCheckpointIDs,
		}
		st.PendingPromptAttribution, st.TurnCheckpointIDs = nil, nil
		st.FilesTouched = unionSorted(st.FilesTouched, stepFiles)
		if len(stepFiles) == 0 {
			m.env.printf("No files were modified during this session\nSkipping commit\n")
		} else {
			m.env.printf("Recorded %d changed file(s) for shadow branch '%s'; the checkpoint's transcript is stored in the background\n", len(stepFiles), shadowBranch(st))
		}
		st.TurnEnds = append(st.TurnEnds, p)
		m.transition(st, session.EventTurnEnd, session.TransitionContext{})
		return nil
	})
	if err != nil {
		return fmt.Errorf("end turn: %w", err)
	}
	if err := session.DeletePrePrompt(repo.Root, in.SessionID); err != nil {
		m.env.Log.Warn("delete pre-prompt state", "error", err)
	}
	return m.finishLater(ctx, in.SessionID)
}

// workTree writes the tree of the work tree a turn end records: HEAD's
// tree with snap (every path git status reported, as it is on disk), and
// records it in st. When the previous turn end's tree is of the same HEAD,
// it is the base and only what changed since is applied: the paths whose
// content differs from what prevCache (that turn end's snapshot) holds,
// and the paths it reported that are clean again, so that a turn costs
// what it changed, not everything changed since the last commit.
func (m *ManualCommit) workTree(st *session.State, head *object.Commit, snap []gitrepo.Change, prevCache map[string]gitrepo.FileStat) (plumbing.Hash, error) {
	repo := m.env.Repo
	base, changes := head.TreeHash, snap
	dirty := make([]string, len(snap))
	for i, c := range snap {
		dirty[i] = c.Path
	}
	if prev := st.WorkTree; prev != nil && prev.Head == head.Hash.String() && repo.HasObject(plumbing.NewHash(prev.Tree)) {
		prevTree, err := repo.Git.TreeObject(plumbing.NewHash(prev.Tree))
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read the last turn end's tree: %w", err)
		}
		base, changes = prevTree.Hash, nil
		now := make(map[string]bool, len(snap))
		var current []gitrepo.Change
		for _, c := range snap {
			now[c.Path] = true
			// Unchanged since that turn end, and recorded there as it
			// is (a directory that became a link and a directory again
			// left its files out of the tree in between).
			if was, ok := prevCache[c.Path]; ok && !c.Delete && was.Hash == c.Hash.String() && fileMode(was.Mode) == c.Mode &&
				checkpoint.TreeEntry(prevTree, c.Path).Hash == c.Hash {
				continue
			}
			current = append(current, c)
		}
		var headTree *object.Tree
		for _, p := range prev.Dirty {
			if now[p] {
				continue
			}
			if headTree == nil {
				if headTree, err = head.Tree(); err != nil {
					return plumbing.ZeroHash, fmt.Errorf("read HEAD's tree: %w", err)
				}
			}
			if e := checkpoint.TreeEntry(headTree, p); e.Exists() {
				changes = append(changes, gitrepo.Change{Path: p, Mode: e.Mode, Hash: e.Hash})
			} else {
				changes = append(changes, gitrepo.Change{Path: p, Delete: true})
			}
		}
		// What the work tree holds now goes last: later changes win, so a
		// path that changed kind (a directory become a link or a file, a
		// file become a directory) ends as it is now, whatever the paths
		// that are clean again below or above it say.
		changes = append(changes, current...)
	}
	tree, err := repo.BuildTree(base, changes)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	st.WorkTree = &session.WorkTreeRecord{Head: head.Hash.String(), Tree: tree.String(), Dirty: dirty}
	return tree, nil
}

// fileMode is the tree mode of a regular file with the stat mode bits m.
func fileMode(m uint32) filemode.FileMode {
	if m&0o111 != 0 {
		return filemode.Executable
	}
	return filemode.Regular
}

// finishLater has the session's pending turn ends finished: by a process
// of their own when the hook can start one (Env.FinishLater: it does
// nothing when one already runs), else now.
func (m *ManualCommit) finishLater(ctx context.Context, sessionID string) error {
	if m.env.FinishLater != nil {
		err := m.env.FinishLater(sessionID)
		if err == nil {
			return nil
		}
		m.env.Log.Warn("turn end: cannot finish in the background; finishing now", "error", err)
	}
	return m.FinishTurnEnds(ctx, sessionID, nil)
}

// SettleTurnEnds makes the steps of the session's pending turn ends
// written before the caller reads or writes its steps: it waits for the
// process finishing them as long as that should take (finishGrace), then
// finishes what is left itself, with the finish lock when it got it and
// beside the finisher when not. When that fails it logs why and the caller
// goes on with the steps as they are.
func (m *ManualCommit) SettleTurnEnds(ctx context.Context, sessionID string) {
	st, err := m.env.Sessions.Load(sessionID)
	if err != nil || len(st.TurnEnds) == 0 {
		return
	}
	lock, err := m.env.Sessions.WaitTurnFinish(sessionID, finishGrace(st))
	switch {
	case errors.Is(err, session.ErrLockTimeout):
		m.env.Log.Info("turn ends still finishing in the background; finishing them here", "session_id", sessionID)
	case err != nil:
		m.env.Log.Warn("wait for the turn ends' finisher", "session_id", sessionID, "error", err)
		return
	}
	release := func() {}
	if lock != nil {
		release = func() { lock.Close() }
	}
	if err := m.FinishTurnEnds(ctx, sessionID, release); err != nil {
		m.env.Log.Warn("finish turn ends", "session_id", sessionID, "error", err)
	}
}

// HasPendingTurnEnds reports whether a session of repo's work tree has
// turn ends whose step is still to be written (from the session index).
func HasPendingTurnEnds(sessions *session.Store, repo *gitrepo.Repo) bool {
	sums, _, err := sessions.Find(session.Query{WorktreePath: repo.Root})
	if err != nil {
		return false
	}
	for _, s := range sums {
		if s.PendingTurnEnds > 0 {
			return true
		}
	}
	return false
}

// SettleAllTurnEnds settles the pending turn ends of every session of the
// work tree (see SettleTurnEnds): what rewind and explain do before they
// read temporary checkpoints.
func SettleAllTurnEnds(ctx context.Context, env *Env) {
	sums, _, err := env.Sessions.Find(session.Query{WorktreePath: env.Repo.Root})
	if err != nil {
		env.Log.Warn("list sessions", "error", err)
		return
	}
	m := NewManualCommit(env)
	for _, s := range sums {
		if s.PendingTurnEnds > 0 {
			m.SettleTurnEnds(ctx, s.SessionID)
		}
	}
}

// FinishTurnEnds writes the steps of the session's pending turn ends,
// oldest first, until none is left. The caller holds the session's finish
// lock, if any; release (nil: none) gives it back, called with the
// session's state locked once no turn end is left, so that a turn end
// saved meanwhile either is seen by this loop or finds no finisher and
// starts one.
func (m *ManualCommit) FinishTurnEnds(ctx context.Context, sessionID string, release func()) (err error) {
	defer func() {
		if release != nil {
			release() // on failure: the next hook or command tries again
		}
	}()
	retries := 0
	for {
		var p session.PendingTurnEnd
		var snap session.State
		newest := false
		uerr := m.env.Sessions.Update(sessionID, func(st *session.State, exists bool) error {
			if !exists || len(st.TurnEnds) == 0 {
				if release != nil {
					release()
					release = nil
				}
				return errNoChange
			}
			p, snap, newest = st.TurnEnds[0], *st, len(st.TurnEnds) == 1
			return errNoChange
		})
		if uerr != nil && !errors.Is(uerr, errNoChange) {
			return uerr
		}
		if p.ID == "" {
			return nil
		}
		step, perr := m.prepareStep(ctx, &snap, p, newest)
		if perr != nil {
			perr = fmt.Errorf("finish the turn end of %s: %w", p.Time.Format(time.RFC3339), perr)
			if p.Failures+1 < maxFinishFailures {
				m.countFailure(sessionID, p.ID)
				return perr // tried again by the next hook or command
			}
			// It keeps failing (a transcript that cannot be read): the
			// step records the work tree alone, and the next step or
			// condensation stores the transcript.
			m.env.Log.Warn("turn end: the transcript cannot be stored; the step records the work tree alone", "session_id", sessionID, "error", perr)
			step = m.bareStep(&snap, p)
		}
		uerr = m.env.Sessions.Update(sessionID, func(st *session.State, exists bool) error {
			if !exists || len(st.TurnEnds) == 0 || st.TurnEnds[0].ID != p.ID {
				return errNoChange // settled by someone else (a condensation dropped it)
			}
			if !sameStored(st.ShadowTranscript, snap.ShadowTranscript) || cursorOf(st) != cursorOf(&snap) {
				return errMoved
			}
			return m.applyStep(ctx, st, p, step)
		})
		switch {
		case errors.Is(uerr, errMoved) && retries < finishRetries:
			retries++
			continue
		case errors.Is(uerr, errMoved):
			return fmt.Errorf("finish turn ends of %s: the stored transcript kept moving", sessionID)
		case uerr != nil && !errors.Is(uerr, errNoChange):
			return uerr
		}
		retries = 0
	}
}

// maxFinishFailures is how many times writing a turn end's step may fail
// before it is written with the work tree alone.
const maxFinishFailures = 3

// countFailure records a failed attempt to write the step of pending turn
// end id.
func (m *ManualCommit) countFailure(sessionID, id string) {
	err := m.env.Sessions.Update(sessionID, func(st *session.State, exists bool) error {
		if !exists || len(st.TurnEnds) == 0 || st.TurnEnds[0].ID != id {
			return errNoChange
		}
		st.TurnEnds[0].Failures++
		return nil
	})
	if err != nil && !errors.Is(err, errNoChange) {
		m.env.Log.Warn("count a failed turn end", "session_id", sessionID, "error", err)
	}
}

// bareStep is the step of pending turn end p with the work tree alone:
// the session's transcript, cursor and metadata stay as they were.
func (m *ManualCommit) bareStep(st *session.State, p session.PendingTurnEnd) *preparedStep {
	c := cursorOf(st)
	return &preparedStep{a: scope{Analysis: &agent.Analysis{From: c, To: c}}, files: p.Files, ts: st.ShadowTranscript, subject: defaultSubject}
}

// errMoved says the session's stored transcript moved while a step was
// prepared from it.
var errMoved = errors.New("the stored transcript moved")

// preparedStep is what a pending turn end's step holds beyond the
// recorded work tree, prepared without the session's lock.
type preparedStep struct {
	a     scope
	files []string // the step's files: the recorded ones and those the transcript names
	// ts is the stored transcript with the turn's lines; nil when the step
	// is not written (no file changed).
	ts       *checkpoint.TranscriptState
	metadata map[string][]byte
	trees    map[string]plumbing.Hash
	subject  string
}

// prepareStep reads what the turn added to the transcript (from the
// session's cursor up to the next turn's first prompt), redacts and stores
// it, and builds the step's metadata, from st, the session's state when it
// was read. For the newest pending turn end, an agent that may write the
// turn's end after the hook (agent.TurnEndWatcher) is given time to.
func (m *ManualCommit) prepareStep(ctx context.Context, st *session.State, p session.PendingTurnEnd, newest bool) (ps *preparedStep, err error) {
	defer panics.Recover(&err)
	panics.Inject(m.env.Getenv, "finish-turn")
	m.env.Repo.NewDeflateBudget()
	ag, gerr := agent.Get(agent.AgentName(p.Agent))
	if gerr != nil {
		ag, _ = agent.GetByAgentType(agent.AgentType(st.AgentType))
		if ag == nil {
			ag = agent.Default()
		}
	}
	in := TurnInput{Agent: ag, SessionID: st.SessionID, TranscriptPath: p.TranscriptPath, Cwd: p.Cwd,
		End: agent.TurnEnd{FinalAnswer: p.FinalAnswer, HasFinalAnswer: p.HasFinalAnswer}}
	if in.TranscriptPath == "" {
		in.TranscriptPath = st.TranscriptPath
	}
	// What the transcript held when the turn ended is the turn's, whatever
	// the scan finds after it: it is stored while the turn is scanned (on
	// another core); what the scan gives the turn past it (a final answer
	// written late) is stored after. A turn that changed no file may have
	// no step, and stores nothing first.
	var early *checkpoint.TranscriptState
	var earlyErr error
	stored := make(chan struct{})
	if len(p.Files) > 0 && in.TranscriptPath != "" && agent.FileFormat(ag, in.TranscriptPath) == agent.TranscriptJSONL {
		go func() {
			defer close(stored)
			defer panics.Recover(&earlyErr)
			early, earlyErr = m.storeUpTo(st, in, p.Size)
		}()
	} else {
		close(stored)
	}
	defer func() { <-stored }()
	// Scanned as the transcript has it (without the client's final
	// answer standing in for its last text), to tell whether it holds the
	// turn's end yet.
	bare := in
	bare.End = agent.TurnEnd{}
	a := m.scanScopeTurn(bare, st, p.Size)
	if _, late := ag.(agent.TurnEndWatcher); late && newest && !endSeen(a, in.End) {
		m.env.awaitTurnEnd(ctx, in, cursorOf(st))
		a = m.scanScopeTurn(bare, st, p.Size)
	}
	if in.End.FinalAnswer != "" {
		// The client's own word for the turn's final answer: it holds even
		// when the transcript lacks it.
		a.LastAssistant = in.End.FinalAnswer
	}
	ps = &preparedStep{a: a}
	ps.files = p.Files
	if named := transcriptFiles(m.env.Repo, in.Cwd, a.ModifiedFiles); len(named) > 0 {
		ps.files = unionSorted(ps.files, m.env.dropIgnored(ctx, named, p.Files))
	}
	if len(ps.files) == 0 {
		return ps, nil
	}
	<-stored
	if earlyErr != nil {
		return nil, earlyErr
	}
	ts := st.ShadowTranscript
	if early != nil {
		ts = early
	}
	if in.TranscriptPath != "" {
		limit := int64(-1)
		if a.To.Offset > 0 {
			limit = a.To.Offset
		}
		after := *st
		after.ShadowTranscript = ts
		src, err := m.readTranscriptUpTo(&after, in, limit)
		if err != nil {
			return nil, err
		}
		ts, err = m.storeSource(&after, src)
		src.close()
		if err != nil {
			return nil, err
		}
	}
	ps.ts = ts
	stepPrompts := m.redactAll(a.Prompts)
	var earlier []string
	tip, _ := m.env.Repo.ReadRef(checkpoint.ShadowRef(shadowBranch(st)))
	if st.CheckpointCount > 0 && !tip.IsZero() {
		earlier = readShadowPrompts(m.env.Repo, tip, st.SessionID)
	}
	prompts := a.prompts(earlier, stepPrompts)
	ps.subject = defaultSubject
	if len(stepPrompts) > 0 {
		// From the redacted prompt: the subject must not leak a secret
		// that the metadata files of the same commit have redacted.
		ps.subject = CommitSubject(stepPrompts[len(stepPrompts)-1])
	}
	summary := m.env.Redactor.Text(a.LastAssistant)
	ps.metadata = map[string][]byte{
		checkpoint.PromptFile:  []byte(joinPrompts(prompts)),
		checkpoint.SummaryFile: []byte(summary),
		checkpoint.ContextFile: []byte(stepContext(st.SessionID, ps.subject, stepPrompts, summary, m.redactTools(a.ToolUses))),
	}
	ps.trees = m.stepTrees(ctx, st)
	return ps, nil
}

// storeUpTo stores the complete lines the transcript gained after the
// session's stored transcript and before offset limit, and returns the
// stored transcript then.
func (m *ManualCommit) storeUpTo(st *session.State, in TurnInput, limit int64) (*checkpoint.TranscriptState, error) {
	src, err := m.readTranscriptUpTo(st, in, limit)
	if err != nil {
		return nil, err
	}
	defer src.close()
	return m.storeSource(st, src)
}

// endSeen reports whether an analysis holds the turn's end as the
// turn-end hook named it: its final answer is the last assistant text.
// Without a final answer (older clients) it cannot tell.
func endSeen(a scope, end agent.TurnEnd) bool {
	if !end.HasFinalAnswer {
		return false
	}
	want := strings.TrimSpace(end.FinalAnswer)
	return want == "" || strings.TrimSpace(a.LastAssistant) == want
}

// applyStep writes the prepared step of pending turn end p on the
// session's shadow branch and records it in st (locked), then drops p
// from the pending ones.
func (m *ManualCommit) applyStep(ctx context.Context, st *session.State, p session.PendingTurnEnd, ps *preparedStep) error {
	st.TurnEnds = st.TurnEnds[1:]
	if len(st.TurnEnds) == 0 {
		st.TurnEnds = nil
	}
	if err := m.writeStep(ctx, st, p, ps); err != nil {
		return err
	}
	if len(p.CheckpointIDs) > 0 {
		// The agent committed during the turn: those checkpoints get the
		// turn's whole transcript.
		st.TurnCheckpointIDs = p.CheckpointIDs
		m.finalizeTurnCheckpoints(ctx, st, m.turnInput(st))
	}
	return nil
}

// writeStep is applyStep's step: the commit and its record in st.
func (m *ManualCommit) writeStep(ctx context.Context, st *session.State, p session.PendingTurnEnd, ps *preparedStep) error {
	a := ps.a
	setCursor(st, a.To)
	// The scope's tokens count whether or not the turn changed files: a
	// turn that only answered (or a background subagent's notification)
	// spent them too, and the cursor has moved past them.
	st.TokenUsage = a.tokens(st.TokenUsage)
	if len(ps.files) == 0 {
		m.env.Log.Info("turn end: no file was modified; no step", "session_id", st.SessionID)
		if st.PendingPromptAttribution == nil {
			st.PendingPromptAttribution = p.Attribution // measured again at the next turn start
		}
		return nil
	}
	branch := shadowBranch(st)
	s := checkpoint.Step{
		Branch: branch, BaseTree: plumbing.NewHash(p.Tree), Snapshot: true,
		Message: checkpoint.StepMessage(ps.subject, metadataDir(st.SessionID), st.SessionID, checkpoint.StrategyManualCommit),
	}
	if ps.metadata != nil { // else a bare step: the metadata stays the previous step's
		s.MetadataDir, s.MetadataFiles, s.MetadataTrees, s.Transcript = metadataDir(st.SessionID), ps.metadata, ps.trees, ps.ts
	}
	step, err := checkpoint.WriteStep(ctx, m.env.Repo, s, p.Time)
	st.ShadowTranscript = ps.ts
	if errors.Is(err, checkpoint.ErrStepUnchanged) {
		m.env.Log.Info("turn end: no change since the last step", "session_id", st.SessionID)
		return nil
	}
	if err != nil {
		return err
	}
	m.env.Log.Info("turn end: step written", "session_id", st.SessionID, "branch", branch, "step", step.String())
	if st.CheckpointCount == 0 {
		st.TranscriptIdentifierAtStart = a.From.LastID
	}
	st.CheckpointCount++
	if pa := p.Attribution; pa != nil {
		pa.CheckpointNumber = st.CheckpointCount
		pa.StepFiles = ps.files
		if b, ok := ps.metadata[checkpoint.PromptFile]; ok {
			pa.ScopePrompts = len(splitPrompts(string(b)))
		}
		st.PromptAttributions = append(st.PromptAttributions, *pa)
	}
	st.FilesTouched = unionSorted(st.FilesTouched, ps.files)
	if st.Changes != nil {
		since := session.PendingSince(p.ID)
		for i := range st.Changes.User {
			if st.Changes.User[i].Since == since {
				st.Changes.User[i].Since = step.String()
			}
		}
	}
	return nil
}

// latestTree returns the newest tree the session recorded of the work
// tree, and what it stands for: its newest pending turn end's
// (session.PendingSince), else the tip of its shadow branch (the commit);
// ZeroHash when it has neither.
func (m *ManualCommit) latestTree(st *session.State) (plumbing.Hash, string, error) {
	if n := len(st.TurnEnds); n > 0 && st.TurnEnds[n-1].Tree != "" {
		return plumbing.NewHash(st.TurnEnds[n-1].Tree), session.PendingSince(st.TurnEnds[n-1].ID), nil
	}
	tip, err := m.env.Repo.ReadRef(checkpoint.ShadowRef(shadowBranch(st)))
	if err != nil || tip.IsZero() {
		return plumbing.ZeroHash, "", err
	}
	tc, err := m.env.Repo.Git.CommitObject(tip)
	if err != nil {
		return plumbing.ZeroHash, "", fmt.Errorf("read shadow branch commit %s: %w", tip, err)
	}
	return tc.TreeHash, tip.String(), nil
}
