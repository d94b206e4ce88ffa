package strategy

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/atomicfile"
)

// recentSessions returns the sessions of this worktree that may hold
// uncondensed work: all but those that ended more than a week ago. It reads
// the session index, not every state file.
func (m *ManualCommit) recentSessions() []session.Summary {
	sums, corrupt, err := m.env.Sessions.Find(session.Query{
		WorktreePath: m.env.Repo.Root,
		EndedSince:   m.env.Now().Add(-7 * 24 * time.Hour),
	})
	for _, c := range corrupt {
		m.env.Log.Warn("corrupt session state", "error", c)
	}
	if err != nil {
		m.env.Log.Warn("list sessions", "error", err)
	}
	return sums
}

// PrepareCommitMsg adds an Entire-Checkpoint trailer to a commit that
// includes an agent session's work (SPEC 5.2.3). During a rebase it adds
// no new link, but keeps the trailers of the messages git drops
// (restoreSkippedTrailers). It never fails a commit: problems are logged.
func (m *ManualCommit) PrepareCommitMsg(ctx context.Context, msgFile, source string) error {
	repo := m.env.Repo
	if session.RebaseInProgress(repo.GitDir) {
		return m.restoreSkippedTrailers(msgFile)
	}
	if source == "merge" || source == "squash" || session.SequenceOperationInProgress(repo.GitDir) {
		return nil
	}
	data, err := os.ReadFile(msgFile)
	if err != nil {
		return fmt.Errorf("read commit message: %w", err)
	}
	msg := string(data)
	if _, ok := checkpoint.CheckpointOf(msg); ok {
		return nil
	}
	sums := m.recentSessions()
	if len(sums) == 0 {
		return nil
	}
	head, _ := repo.Head()
	if source == "commit" {
		// Amend: give the commit back the link of the checkpoint it had.
		for _, s := range sums {
			if s.BaseCommit == head.String() && s.LastCheckpointID != "" {
				if id, err := checkpoint.ParseID(s.LastCheckpointID); err == nil {
					return writeMessage(msgFile, checkpoint.AppendCheckpointTrailer(msg, id))
				}
			}
		}
		return nil
	}

	// An agent committing (no terminal, an active session) is linked
	// without asking (agent fast path), but, like any commit, only when it
	// holds the session's work: post-commit condenses nothing otherwise,
	// and the trailer would point to nothing.
	linked := m.sessionWithStagedWork(ctx, sums)
	if linked == nil {
		return nil
	}
	id := m.env.checkpoints().NewID()
	agentLabel := linked.AgentType
	if agentLabel == "" {
		agentLabel = "Agent"
	}
	// The last prompt is read (from the shadow branch) only where it is
	// shown: not for an agent's own `git commit -m`.
	switch source {
	case "message":
		if c := m.env.Confirmer; c != nil && c.Interactive() && !c.ConfirmLink(agentLabel, m.lastPrompt(linked)) {
			return nil
		}
		msg = checkpoint.AppendCheckpointTrailer(msg, id)
	case "", "template":
		msg = checkpoint.InsertCheckpointTrailerForEditor(msg, id, agentLabel, m.lastPrompt(linked))
	default:
		msg = checkpoint.AppendCheckpointTrailer(msg, id)
	}
	// Marked before the trailer exists, so that a post-commit that never
	// runs (killed with this hook's successors) leaves a trace
	// CompletePending follows.
	m.markTrailer(id)
	return writeMessage(msgFile, msg)
}

// restoreSkippedTrailers puts back, during a rebase, the trailers of the
// messages git comments out for a combined commit (a fixup's: "# The
// commit message #2 will be skipped"), which git would strip with the
// comments. They are in the message itself when a squash opens the
// editor; for a chain of fixups git gives the first message alone and
// keeps the combined one in rebase-merge/message-squash. It never adds a
// new link: the commits of a rebase replay work already linked.
func (m *ManualCommit) restoreSkippedTrailers(msgFile string) error {
	data, err := os.ReadFile(msgFile)
	if err != nil {
		return fmt.Errorf("read commit message: %w", err)
	}
	ids := checkpoint.CommentedCheckpoints(string(data))
	if f, err := os.Open(filepath.Join(m.env.Repo.GitDir, "rebase-merge", "message-squash")); err == nil {
		squash, _ := io.ReadAll(io.LimitReader(f, maxSquashMessage))
		f.Close()
		ids = append(ids, checkpoint.CommentedCheckpoints(string(squash))...)
	}
	msg, changed := checkpoint.AddCheckpointTrailers(string(data), ids)
	if !changed {
		return nil
	}
	return writeMessage(msgFile, msg)
}

// maxSquashMessage bounds the combined message of a rebase read by
// restoreSkippedTrailers.
const maxSquashMessage = 16 << 20

// writeMessage replaces the commit message file atomically: a hook killed
// while writing it must not leave git an empty or cut message.
func writeMessage(msgFile, msg string) error {
	if err := atomicfile.Write(msgFile, []byte(msg), 0o644); err != nil {
		return fmt.Errorf("write commit message: %w", err)
	}
	return nil
}

// sessionWithStagedWork returns the first session whose work is staged
// for this commit (see holdsWork).
func (m *ManualCommit) sessionWithStagedWork(ctx context.Context, sums []session.Summary) *session.State {
	staged, err := m.stagedChanges(ctx)
	if err != nil {
		m.env.Log.Warn("list staged files", "error", err)
		return nil
	}
	if len(staged) == 0 {
		return nil
	}
	for _, s := range sums {
		if s.FilesTouched == 0 && s.Phase != session.PhaseActive {
			continue
		}
		st, err := m.env.Sessions.Load(s.SessionID)
		if err != nil {
			continue
		}
		ok, _ := m.holdsWork(st, func([]string) (map[string]committedFile, error) { return staged, nil })
		if ok {
			return st
		}
	}
	return nil
}

// transcriptModified returns the files the live transcript modified since
// the session's last step.
func (m *ManualCommit) transcriptModified(st *session.State) []string {
	a := m.scan(m.turnInput(st), cursorOf(st))
	return transcriptFiles(m.env.Repo, "", a.ModifiedFiles)
}

// lastPrompt is the last prompt of a session's current scope, from its
// shadow branch (redacted there), else its first prompt, redacted: it is
// shown in the commit message template, which git keeps when its cleanup
// mode keeps comments.
func (m *ManualCommit) lastPrompt(st *session.State) string {
	if tip, err := m.env.Repo.ReadRef(checkpoint.ShadowRef(shadowBranch(st))); err == nil && !tip.IsZero() {
		if p := readShadowPrompts(m.env.Repo, tip, st.SessionID); len(p) > 0 {
			return p[len(p)-1]
		}
	}
	return m.env.Redactor.Text(st.FirstPrompt)
}

// LinkConfirmer asks the person making a commit whether to link it to an
// agent session. The command layer implements it on the terminal; the
// strategy never opens one itself.
type LinkConfirmer interface {
	// Interactive reports whether a person is at a terminal for this
	// commit. Without one (an agent committing) a commit holding a
	// session's work is linked without asking.
	Interactive() bool
	// ConfirmLink asks whether to link a `git commit -m` commit to the
	// active session of agentLabel, whose last prompt is prompt ("" for
	// none; shown with ShortPrompt). The default answer, and the answer
	// when the terminal cannot be used, is yes. Both strings come from the
	// session and may hold escape sequences: they are printed escaped.
	ConfirmLink(agentLabel, prompt string) bool
}

// CommitMsg removes a trailer that is the only content of a message, so
// that git aborts the empty commit as the user meant (SPEC 3.9).
func (m *ManualCommit) CommitMsg(ctx context.Context, msgFile string) error {
	data, err := os.ReadFile(msgFile)
	if err != nil {
		return fmt.Errorf("read commit message: %w", err)
	}
	if out, changed := checkpoint.StripLoneCheckpointTrailer(string(data)); changed {
		return writeMessage(msgFile, out)
	}
	// The commit is going to be linked: announce its checkpoint here, since
	// git's post-commit shim discards entire's stderr (SPEC 2.4).
	if id, ok := checkpoint.CheckpointOf(string(data)); ok {
		m.emitCheckpointRef(id, commitSubject(string(data)))
	}
	return nil
}

// commitSubject is the first line of a commit message that is neither
// blank nor a git comment.
func commitSubject(msg string) string {
	for _, l := range strings.Split(msg, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			return t
		}
	}
	return ""
}
