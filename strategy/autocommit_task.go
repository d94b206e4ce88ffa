package strategy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/go-git/go-git/v5/plumbing"
)

// TaskStart records the untracked files before a subagent runs.
func (a *AutoCommit) TaskStart(ctx context.Context, in TaskInput) error {
	return a.env.taskStart(ctx, in)
}

// TaskEnd commits a subagent's changes with the task subject and an
// Entire-Checkpoint trailer, then writes a task checkpoint: session
// metadata with is_task and tool_use_id, and the task's files under
// <shard>/tasks/<tool_use_id>/ (SPEC 5.3). Nothing is written when the
// subagent changed no file.
func (a *AutoCommit) TaskEnd(ctx context.Context, in TaskInput) error {
	repo := a.env.Repo
	tc, err := a.env.taskEndContext(ctx, in)
	if err != nil || tc == nil {
		return err
	}
	defer session.DeletePreTask(repo.Root, in.ToolUseID)
	head, pre, ws, subPath := tc.head, tc.pre, tc.ws, tc.subPath
	err = a.env.Sessions.Update(in.SessionID, func(st *session.State, exists bool) error {
		if !exists || st.BaseCommit == "" {
			a.initState(st, in.TurnInput, head, ws)
			st.Phase = session.PhaseActive
		}
		var modified []string
		if subPath != "" {
			if an, err := scanWhole(in.Agent, subPath); err == nil {
				modified = an.ModifiedFiles
			}
		} else {
			modified = a.mc.scan(in.TurnInput, cursorOf(st)).ModifiedFiles
		}
		before := st.UntrackedFilesAtStart
		if pre != nil {
			before = pre.UntrackedFiles
		}
		files := changedOnly(unionSorted(transcriptFiles(repo, in.Cwd, modified), ws.newFiles(before), ws.Deleted), ws.Dirty)
		if len(files) == 0 {
			a.env.printf("[entire] No file changes detected, skipping task checkpoint\n")
			return errNoChange
		}
		if reason := a.commitBlocked(); reason != "" {
			a.env.printf("[entire] Skipped task checkpoint: %s\n", reason)
			return errNoChange
		}
		return a.saveTask(ctx, st, in, head, files, subPath)
	})
	if err == errNoChange {
		return nil
	}
	return err
}

// saveTask makes the code commit and the task checkpoint of a finished
// subagent.
func (a *AutoCommit) saveTask(ctx context.Context, st *session.State, in TaskInput, head plumbing.Hash, files []string, subPath string) error {
	ts, err := a.mc.storeTranscript(st, in.TurnInput)
	if err == nil {
		ts, err = a.mc.underCurrentRules(st, ts)
	}
	if err != nil {
		return err
	}
	id := a.env.checkpoints().NewID()
	subject := taskSubject(in, a.env.Redactor)
	commit, err := a.commitCode(ctx, head, files, subject, id)
	if err != nil || commit.IsZero() {
		if err == nil {
			a.env.printf("Skipped task checkpoint (no changes since last commit)\n")
		}
		return err
	}
	a.env.printf("Committed task changes to active branch (%s)\n", commit.String()[:7])
	st.ShadowTranscript = ts
	taskDir := "tasks/" + in.ToolUseID + "/"
	cp, _ := json.MarshalIndent(map[string]string{
		"session_id": st.SessionID, "tool_use_id": in.ToolUseID,
		"checkpoint_uuid": findToolResultUUID(in.TranscriptPath, cursorOf(st).Offset, in.ToolUseID), "agent_id": in.AgentID,
	}, "", "  ")
	taskFiles := map[string][]byte{taskDir + "checkpoint.json": append(cp, '\n')}
	if subPath != "" {
		if data, err := agent.ReadTranscriptFile(subPath); err == nil {
			lines, _, err := a.mc.redactLines(data)
			if err != nil {
				return err
			}
			taskFiles[taskDir+"agent-"+in.AgentID+".jsonl"] = lines
		}
	}
	meta := a.metadata(st, &agent.Analysis{From: cursorOf(st)}, files)
	meta.IsTask, meta.ToolUseID = true, in.ToolUseID
	w := checkpoint.SessionWrite{Metadata: meta, Transcript: ts, CheckpointFiles: taskFiles}
	info := checkpoint.CommitInfo{Subject: subject, MetadataTask: taskPath(id, strings.TrimSuffix(taskDir, "/"))}
	if _, err := a.env.checkpoints().WriteSession(ctx, id, w, info); err != nil {
		return fmt.Errorf("commit %s has checkpoint %s but its metadata was not written: %w", commit.String()[:7], id, err)
	}
	a.env.printf("[entire] Created task checkpoint: %s (%s)\n", subject, id)
	a.recordCheckpoint(st, id, commit)
	return nil
}

// TaskProgress makes an incremental task checkpoint while a subagent works
// (post-todo): a code commit of what changed since the subagent started
// and a checkpoint holding tasks/<tool_use_id>/checkpoints/NNN-<id>.json.
// It makes none when no subagent runs, on the default branch (SPEC 5.5),
// or when nothing changed; a todo call that names todos by ID is recorded
// in the session state either way (see todoDescription).
func (a *AutoCommit) TaskProgress(ctx context.Context, in TaskInput) error {
	repo := a.env.Repo
	toolUseID, head, err := a.env.incrementalTarget()
	if err != nil {
		return err
	}
	if toolUseID == "" {
		return a.env.rememberTodos(in)
	}
	pre, _ := session.ReadPreTask(repo.Root, toolUseID)
	ws, err := readStatus(ctx, repo)
	if err != nil {
		return err
	}
	var before []string
	since := time.Time{}
	if pre != nil {
		before, since = pre.UntrackedFiles, pre.Timestamp
	}
	files := excludeAll(ws.Dirty, before)
	if len(files) == 0 || a.commitBlocked() != "" {
		return a.env.rememberTodos(in)
	}
	err = a.env.Sessions.Update(in.SessionID, func(st *session.State, exists bool) error {
		if !exists || st.BaseCommit == "" {
			a.initState(st, in.TurnInput, head, ws)
			st.Phase = session.PhaseActive
		}
		recorded := recordTodos(st, in.Todos)
		seq := a.countIncremental(head, toolUseID, since) + 1
		subject := a.env.incrementalSubject(todoDescription(in.Todos, st.Todos), seq, toolUseID)
		id := a.env.checkpoints().NewID()
		commit, err := a.commitCode(ctx, head, files, subject, id)
		if err != nil || commit.IsZero() {
			if err == nil && !recorded {
				err = errNoChange
			}
			return err
		}
		var data any
		_ = json.Unmarshal(in.ToolInput, &data)
		rec, _ := json.MarshalIndent(map[string]any{"type": in.ToolName, "tool_use_id": toolUseID, "timestamp": a.env.Now().UTC(), "data": data}, "", "  ")
		name := fmt.Sprintf("tasks/%s/checkpoints/%03d-%s.json", toolUseID, seq, toolUseID)
		meta := a.metadata(st, &agent.Analysis{From: cursorOf(st)}, files)
		meta.IsTask, meta.ToolUseID = true, toolUseID
		w := checkpoint.SessionWrite{Metadata: meta, CheckpointFiles: map[string][]byte{name: append([]byte(a.env.Redactor.Text(string(rec))), '\n')}}
		info := checkpoint.CommitInfo{Subject: subject, MetadataTask: taskPath(id, name)}
		if _, err := a.env.checkpoints().WriteSession(ctx, id, w, info); err != nil {
			return fmt.Errorf("commit %s has checkpoint %s but its metadata was not written: %w", commit.String()[:7], id, err)
		}
		a.env.printf("[entire] Created incremental checkpoint #%d (%s)\n", seq, id)
		a.recordCheckpoint(st, id, commit)
		return nil
	})
	if err == errNoChange {
		return nil
	}
	return err
}

// countIncremental counts the incremental checkpoint commits of a task:
// the linked commits on HEAD's first-parent line, made since the task
// started, whose subject names the task (at most 100 commits are read).
func (a *AutoCommit) countIncremental(head plumbing.Hash, toolUseID string, since time.Time) int {
	suffix := "(" + short12(toolUseID) + ")"
	n := 0
	h := head
	for i := 0; i < 100 && !h.IsZero(); i++ {
		c, err := a.env.Repo.Git.CommitObject(h)
		if err != nil || c.Committer.When.Before(since.Truncate(time.Second)) {
			break
		}
		subject, _, _ := strings.Cut(c.Message, "\n")
		if _, ok := checkpoint.CheckpointOf(c.Message); ok && strings.HasSuffix(subject, suffix) {
			n++
		}
		if len(c.ParentHashes) == 0 {
			break
		}
		h = c.ParentHashes[0]
	}
	return n
}

// excludeAll returns paths without those in drop.
func excludeAll(paths, drop []string) []string {
	set := make(map[string]bool, len(drop))
	for _, p := range drop {
		set[p] = true
	}
	var out []string
	for _, p := range paths {
		if !set[p] {
			out = append(out, p)
		}
	}
	return out
}

// taskPath is the Entire-Metadata-Task value of a task checkpoint's file
// rel: its path in the tree that holds it, the metadata branch
// ("<shard>/tasks/...") or (a ULID) the checkpoint's own ref ("tasks/...").
func taskPath(id checkpoint.ID, rel string) string {
	if id.IsULID() {
		return rel
	}
	return id.Shard() + "/" + rel
}
