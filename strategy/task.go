package strategy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/strategy/subagent"
	"github.com/go-git/go-git/v5/plumbing"
)

// SubagentTranscripts is implemented by agents whose subagents write their
// own transcripts; it lists where a subagent's transcript may be.
type SubagentTranscripts interface {
	SubagentTranscriptPaths(transcriptPath, agentID string) []string
}

// TaskStart records the untracked files before a subagent runs.
func (m *ManualCommit) TaskStart(ctx context.Context, in TaskInput) error {
	return m.env.taskStart(ctx, in)
}

// taskStart is shared by the strategies; see ManualCommit.TaskStart.
func (e *Env) taskStart(ctx context.Context, in TaskInput) error {
	if err := session.ValidateToolUseID(in.ToolUseID); err != nil {
		return err
	}
	ws, err := readStatus(ctx, e.Repo)
	if err != nil {
		return err
	}
	return session.WritePreTask(e.Repo.Root, &session.PreTask{ToolUseID: in.ToolUseID, Timestamp: e.Now(), UntrackedFiles: ws.Untracked})
}

// taskEnd is what both strategies gather when a subagent ends.
type taskEnd struct {
	head    plumbing.Hash
	pre     *session.PreTask // the untracked files when it started (nil: unknown)
	ws      *worktreeStatus  // the hook's one git status
	subPath string           // its own transcript ("" when none)
}

// taskEndContext validates a task end and gathers its context; nil (and no
// error) in a repository without commits.
func (e *Env) taskEndContext(ctx context.Context, in TaskInput) (*taskEnd, error) {
	if err := session.ValidateToolUseID(in.ToolUseID); err != nil {
		return nil, err
	}
	head, err := e.Repo.Head()
	if err != nil || head.IsZero() {
		return nil, err
	}
	pre, _ := session.ReadPreTask(e.Repo.Root, in.ToolUseID)
	ws, err := readStatus(ctx, e.Repo)
	if err != nil {
		return nil, err
	}
	return &taskEnd{head: head, pre: pre, ws: ws, subPath: subagentTranscript(in)}, nil
}

// TaskEnd saves a subagent's changes as a task checkpoint on the shadow
// branch (SPEC 3.6, 5.2.9).
func (m *ManualCommit) TaskEnd(ctx context.Context, in TaskInput) error {
	repo := m.env.Repo
	// The task's step follows the turns' steps, and stores the transcript
	// after them.
	m.SettleTurnEnds(ctx, in.SessionID)
	tc, err := m.env.taskEndContext(ctx, in)
	if err != nil || tc == nil {
		return err
	}
	defer session.DeletePreTask(repo.Root, in.ToolUseID)
	head, pre, ws, subPath := tc.head, tc.pre, tc.ws, tc.subPath
	err = m.env.Sessions.Update(in.SessionID, func(st *session.State, exists bool) error {
		if !exists || st.BaseCommit == "" {
			m.initState(st, in.TurnInput, head, ws)
		} else if st.BaseCommit != head.String() {
			if err := m.migrate(ctx, st, head); err != nil {
				return err
			}
		}
		var modified []string
		if subPath != "" {
			if a, err := scanWhole(in.Agent, subPath); err == nil {
				modified = a.ModifiedFiles
			}
		} else {
			modified = m.scan(in.TurnInput, cursorOf(st)).ModifiedFiles
		}
		before := st.UntrackedFilesAtStart
		if pre != nil {
			before = pre.UntrackedFiles
		}
		files := m.env.dropIgnored(ctx, unionSorted(transcriptFiles(repo, in.Cwd, modified), ws.newFiles(before), ws.Deleted), ws.Dirty)
		if len(files) == 0 {
			m.env.printf("[entire] No file changes detected, skipping task checkpoint\n")
			return errNoChange
		}
		if err := m.saveTaskStep(ctx, st, in, head, ws, subPath); err != nil {
			return err
		}
		st.FilesTouched = unionSorted(st.FilesTouched, files)
		return nil
	})
	if errors.Is(err, errNoChange) {
		return nil
	}
	return err
}

// saveTaskStep writes the task checkpoint commit.
func (m *ManualCommit) saveTaskStep(ctx context.Context, st *session.State, in TaskInput, head plumbing.Hash, ws *worktreeStatus, subPath string) error {
	repo := m.env.Repo
	ts, err := m.storeTranscript(st, in.TurnInput)
	if err != nil {
		return err
	}
	st.ShadowTranscript = ts
	taskDir := metadataDir(st.SessionID) + "/tasks/" + in.ToolUseID
	cp, _ := json.MarshalIndent(map[string]string{
		"session_id": st.SessionID, "tool_use_id": in.ToolUseID,
		"checkpoint_uuid": findToolResultUUID(in.TranscriptPath, cursorOf(st).Offset, in.ToolUseID), "agent_id": in.AgentID,
	}, "", "  ")
	files := map[string][]byte{"checkpoint.json": append(cp, '\n')}
	if len(in.Conclusion) > 0 {
		files[subagent.ConclusionFile] = in.Conclusion
	}
	if subPath != "" {
		if data, err := agent.ReadTranscriptFile(subPath); err == nil {
			lines, refs, err := m.redactLines(data)
			if err != nil {
				return err
			}
			files["agent-"+in.AgentID+".jsonl"] = lines
			m.keepReferences(st.SessionID, refs)
		}
	}
	changes, err := repo.WorktreeChanges(ws.Dirty)
	if err != nil {
		return err
	}
	tc, err := ts.TreeChanges(repo, metadataDir(st.SessionID))
	if err != nil {
		return err
	}
	hc, err := repo.Git.CommitObject(head)
	if err != nil {
		return fmt.Errorf("read HEAD commit %s: %w", head, err)
	}
	subject := taskSubject(in, m.env.Redactor)
	_, err = checkpoint.WriteStep(ctx, repo, checkpoint.Step{
		Branch: shadowBranch(st), BaseTree: hc.TreeHash, Changes: append(changes, tc...), Snapshot: true,
		MetadataDir: taskDir, MetadataFiles: files,
		Message: checkpoint.TaskStepMessage(subject, taskDir, st.SessionID, checkpoint.StrategyManualCommit),
	}, m.env.Now())
	if errors.Is(err, checkpoint.ErrStepUnchanged) {
		return nil
	}
	if err == nil {
		m.env.printf("[entire] Created task checkpoint: %s\n", subject)
	}
	return err
}

// taskSubject is the subject of a final task checkpoint (SPEC 5.2.9). The
// agent's words in it, the description and the subagent type, are redacted
// (the description before it is cut).
func taskSubject(in TaskInput, r Redactor) string {
	id := in.ToolUseID
	if len(id) > 12 {
		id = id[:12]
	}
	desc := truncateBytes(r.Text(in.Description), 60)
	typ := r.Text(in.SubagentType)
	switch {
	case typ != "" && desc != "":
		return fmt.Sprintf("Completed '%s' agent: %s (%s)", typ, desc, id)
	case typ != "":
		return fmt.Sprintf("Completed '%s' agent (%s)", typ, id)
	case desc != "":
		return fmt.Sprintf("Completed agent: %s (%s)", desc, id)
	}
	return "Task: " + id
}

// truncateBytes cuts s to max bytes (on a rune boundary) plus "...".
func truncateBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}

// subagentTranscript finds a subagent's own transcript file, "" if none.
func subagentTranscript(in TaskInput) string {
	if session.ValidateToolUseID(in.AgentID) != nil {
		// Empty, or not a plain ID (it names files): no subagent transcript.
		return ""
	}
	if in.SubagentTranscriptPath != "" {
		return in.SubagentTranscriptPath
	}
	if st, ok := in.Agent.(SubagentTranscripts); ok {
		for _, p := range st.SubagentTranscriptPaths(in.TranscriptPath, in.AgentID) {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	return ""
}

// scanWhole analyses a whole transcript file.
func scanWhole(a agent.Agent, path string) (*agent.Analysis, error) {
	sc, ok := scanner(a)
	if !ok {
		return nil, errors.New("agent cannot analyse transcripts")
	}
	return sc.ScanTranscript(path, agent.Position{})
}

// findToolResultUUID returns the uuid of the transcript line (at or after
// offset) that carries the tool result of toolUseID, "" when not found. It
// reads only from offset on.
func findToolResultUUID(path string, offset int64, toolUseID string) string {
	f, err := agent.OpenTranscript(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	needle := []byte(`"tool_use_id":"` + toolUseID + `"`)
	r := bufio.NewReaderSize(f, 1<<20)
	found := ""
	for {
		line, err := r.ReadBytes('\n')
		if bytes.Contains(line, needle) && bytes.Contains(line, []byte(`"tool_result"`)) {
			var v struct {
				UUID string `json:"uuid"`
			}
			if json.Unmarshal(line, &v) == nil && v.UUID != "" {
				found = v.UUID
			}
		}
		if err != nil {
			return found
		}
	}
}

// incrementalTarget decides whether a post-todo hook makes an incremental
// task checkpoint (SPEC 2.6, 5.5): it returns the tool use ID of the
// running subagent and HEAD, or "" when no subagent runs, HEAD is on the
// default branch, or the repository has no commit yet.
func (e *Env) incrementalTarget() (string, plumbing.Hash, error) {
	repo := e.Repo
	toolUseID := latestPreTask(repo)
	if toolUseID == "" {
		return "", plumbing.ZeroHash, nil
	}
	if b, _ := repo.HeadBranch(); b == "main" || b == "master" {
		e.printf("Entire: skipping incremental checkpoint on branch '%s'\n", b)
		return "", plumbing.ZeroHash, nil
	}
	head, err := repo.Head()
	if err != nil || head.IsZero() {
		return "", plumbing.ZeroHash, err
	}
	return toolUseID, head, nil
}

// TaskProgress saves an incremental checkpoint while a subagent works
// (post-todo): only when a subagent is running, not on the default branch,
// and something changed. Either way, a todo call that names todos by ID is
// recorded in the session state (see todoDescription).
func (m *ManualCommit) TaskProgress(ctx context.Context, in TaskInput) error {
	repo := m.env.Repo
	m.SettleTurnEnds(ctx, in.SessionID) // its step follows the turns' steps
	toolUseID, head, err := m.env.incrementalTarget()
	if err != nil {
		return err
	}
	var ws *worktreeStatus
	if toolUseID != "" {
		if ws, err = readStatus(ctx, repo); err != nil {
			return err
		}
	}
	if toolUseID == "" || len(ws.Dirty) == 0 {
		return m.env.rememberTodos(in)
	}
	err = m.env.Sessions.Update(in.SessionID, func(st *session.State, exists bool) error {
		if !exists || st.BaseCommit == "" {
			m.initState(st, in.TurnInput, head, ws)
		}
		recorded := recordTodos(st, in.Todos)
		taskDir := metadataDir(st.SessionID) + "/tasks/" + toolUseID
		seq := countIncremental(repo, shadowBranch(st), taskDir) + 1
		name := fmt.Sprintf("checkpoints/%03d-%s.json", seq, toolUseID)
		var data any
		_ = json.Unmarshal(in.ToolInput, &data)
		rec, _ := json.MarshalIndent(map[string]any{"type": in.ToolName, "tool_use_id": toolUseID, "timestamp": m.env.Now().UTC(), "data": data}, "", "  ")
		rec = []byte(m.env.Redactor.Text(string(rec)))
		blob, err := repo.WriteBlob(append(rec, '\n'))
		if err != nil {
			return err
		}
		changes, err := repo.WorktreeChanges(ws.Dirty)
		if err != nil {
			return err
		}
		changes = append(changes, gitrepo.Change{Path: taskDir + "/" + name, Mode: 0o100644, Hash: blob})
		hc, err := repo.Git.CommitObject(head)
		if err != nil {
			return fmt.Errorf("read HEAD commit %s: %w", head, err)
		}
		subject := m.env.incrementalSubject(todoDescription(in.Todos, st.Todos), seq, toolUseID)
		_, err = checkpoint.WriteStep(ctx, repo, checkpoint.Step{
			Branch: shadowBranch(st), BaseTree: hc.TreeHash, Changes: changes, Snapshot: true,
			Message: checkpoint.TaskStepMessage(subject, taskDir+"/"+name, st.SessionID, checkpoint.StrategyManualCommit),
		}, m.env.Now())
		if errors.Is(err, checkpoint.ErrStepUnchanged) {
			if recorded {
				return nil // no step, but the record changed
			}
			return errNoChange
		}
		if err != nil {
			return err
		}
		st.FilesTouched = unionSorted(st.FilesTouched, ws.Dirty)
		return nil
	})
	if errors.Is(err, errNoChange) {
		return nil
	}
	return err
}

func short12(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// latestPreTask returns the tool use ID of the most recently started
// subagent that has not finished, "" when none runs.
func latestPreTask(repo *gitrepo.Repo) string {
	matches, _ := filepath.Glob(filepath.Join(repo.Root, session.TmpDir, "pre-task-*.json"))
	type cand struct {
		id  string
		mod int64
	}
	var cands []cand
	for _, p := range matches {
		if fi, err := os.Stat(p); err == nil {
			id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "pre-task-"), ".json")
			cands = append(cands, cand{id, fi.ModTime().UnixNano()})
		}
	}
	if len(cands) == 0 {
		return ""
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].mod > cands[j].mod })
	return cands[0].id
}

// countIncremental counts the incremental checkpoints already stored for a
// task on the shadow branch (the original counted a local directory nothing
// wrote, so its sequence was always 1).
func countIncremental(repo *gitrepo.Repo, branch, taskDir string) int {
	tip, err := repo.ReadRef(checkpoint.ShadowRef(branch))
	if err != nil || tip.IsZero() {
		return 0
	}
	c, err := repo.Git.CommitObject(tip)
	if err != nil {
		return 0
	}
	t, err := c.Tree()
	if err != nil {
		return 0
	}
	sub, err := t.Tree(taskDir + "/checkpoints")
	if err != nil {
		return 0
	}
	return len(sub.Entries)
}
