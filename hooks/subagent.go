package hooks

import (
	"context"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/conclusion"
	"github.com/entirecli/entire/notes"
	"github.com/entirecli/entire/strategy"
	"github.com/entirecli/entire/strategy/subagent"
)

// The subagent conclusion protocol on Claude Code's hooks:
//
//   - subagent-start (SubagentStart) hands conclusion.BriefInstruction to
//     the subagent as additional context and records when it started;
//   - subagent-stop (SubagentStop) turns the subagent's last message
//     (last_assistant_message, else the end of agent_transcript_path) into
//     a task record with its conclusion (synthesised when it wrote no
//     block) and keeps it pending under the agent ID; it prints nothing,
//     since additional context there would keep the subagent running;
//   - post-task (PostToolUse of Agent|Task) takes that record (or, when no
//     subagent-stop ran, parses the tool response), gives it the tool use
//     ID, stores it in the task checkpoint's metadata as conclusion.json and
//     answers the parent with conclusion.FormatForParent. A background
//     launch (status async_launched, Claude Code 2.1.332's only kind)
//     records the launch only: its subagent-stop, which may come after the
//     parent's turn ended, completes the record and makes the task
//     checkpoint with the subagent's transcript; the record reaches the
//     committed checkpoint (and explain) but not the parent, which is not
//     waiting;
//   - the <task-notification> prompt that then hands the result to the
//     parent (agent.TaskNotifier) is no prompt: it gives the task its
//     result when subagent-stop left none, and the model call it starts
//     continues the session's turns.
//
// Condensation copies the pending records into the committed checkpoint
// (package strategy). strategy_options.conclusions = false turns all of it
// off.
//
// Gemini CLI has no subagent events: its subagents are an invoke_agent
// tool call, and the hooks carry neither a tool use ID nor the subagent's.
// before-tool records the task's start; after-tool finds the subagent's own
// transcript from its prompt (agent.SubagentFinder) and makes the task
// checkpoint, with a record whose output is the subagent's result
// (complete_task's response) and whose conclusion is synthesised from it.
// Nothing is handed to the parent.

// conclusionsOn reports whether subagent task records are kept (the
// conclusion protocol, and Gemini CLI's subagent results).
func (h *agentHook) conclusionsOn() bool {
	return h.senv.Settings == nil || h.senv.Settings.Conclusions()
}

// hookContext is a Claude Code answer carrying additional context.
func hookContext(event, text string) map[string]any {
	return map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event, "additionalContext": text}}
}

// newTask starts a task record for the current session.
func (h *agentHook) newTask(id string) *conclusion.Task {
	return &conclusion.Task{
		ID: id, Engine: string(h.agent.Name()), ParentSessionID: h.in.SessionID,
		ProjectPath: h.senv.Repo.Root, WorkDir: h.in.Cwd, Status: conclusion.TaskRunning,
	}
}

// pendingTask returns the pending record under key, or a new one.
func (h *agentHook) pendingTask(p *subagent.Pending, key, id string) *conclusion.Task {
	if t, err := p.Get(h.in.SessionID, key); err == nil {
		return t
	}
	return h.newTask(id)
}

// conclude sets a finished task's conclusion (synthesised when the output
// holds no block) and redacts what will be stored.
func (h *agentHook) conclude(t *conclusion.Task) {
	t.Conclusion = conclusion.Enrich(t, conclusion.DelegationOptions{SynthesizeFallback: true, Now: h.env.Now}, nil)
	subagent.Redact(t, h.senv.Redactor.Text)
}

// subagentStart answers SubagentStart.
func (h *agentHook) subagentStart() map[string]any {
	if !h.conclusionsOn() {
		return nil
	}
	if id := h.in.AgentID; session.ValidateToolUseID(id) == nil {
		p := subagent.NewPending(h.senv.Repo.Root)
		t := h.pendingTask(p, id, id)
		if t.StartedAt.IsZero() {
			t.StartedAt = h.env.Now().UTC()
		}
		if err := p.Put(h.in.SessionID, id, t); err != nil {
			h.senv.Log.Warn("record subagent start", "agent_id", id, "error", err)
		}
	}
	return hookContext("SubagentStart", conclusion.BriefInstruction())
}

// subagentStop handles SubagentStop: it never answers. A subagent
// launched in the background gets its task checkpoint here.
func (h *agentHook) subagentStop(ctx context.Context, st strategy.Strategy, ti strategy.TurnInput) error {
	id := h.in.AgentID
	if !h.conclusionsOn() || session.ValidateToolUseID(id) != nil {
		return nil
	}
	msg := h.in.LastAssistantMessage
	if strings.TrimSpace(msg) == "" {
		var err error
		if msg, err = subagent.LastMessage(h.in.AgentTranscriptPath); err != nil {
			h.senv.Log.Warn("read subagent transcript", "agent_id", id, "error", err)
		}
	}
	p := subagent.NewPending(h.senv.Repo.Root)
	t := h.pendingTask(p, id, id)
	t.Status, t.EndedAt = conclusion.TaskCompleted, h.env.Now().UTC()
	subagent.SetOutput(t, msg)
	h.conclude(t)
	if err := p.Put(h.in.SessionID, id, t); err != nil {
		return err
	}
	l, ok, err := p.TakeLaunch(h.in.SessionID, id)
	if err != nil || !ok {
		return err
	}
	return h.backgroundTaskEnd(ctx, st, ti, l, t)
}

// backgroundTaskEnd makes the task checkpoint of a subagent that ran in
// the background, once it stopped.
func (h *agentHook) backgroundTaskEnd(ctx context.Context, st strategy.Strategy, ti strategy.TurnInput, l subagent.Launch, t *conclusion.Task) error {
	in := strategy.TaskInput{TurnInput: ti, ToolUseID: l.ToolUseID, AgentID: l.AgentID, SubagentType: l.SubagentType,
		Description: l.Description, ToolName: l.ToolName, ToolInput: l.ToolInput}
	in.Conclusion, _ = subagent.Encode(t)
	return st.TaskEnd(ctx, in)
}

// taskNotified handles a task notification (agent.TaskNotifier): the
// task whose tool call it names gets the result as its output when its
// subagent-stop left none.
func (h *agentHook) taskNotified(n agent.TaskNotice) {
	if !h.conclusionsOn() || session.ValidateToolUseID(n.ToolUseID) != nil {
		return
	}
	p := subagent.NewPending(h.senv.Repo.Root)
	pending, err := p.List(h.in.SessionID)
	if err != nil {
		h.senv.Log.Warn("task notification", "tool_use_id", n.ToolUseID, "error", err)
		return
	}
	for _, pt := range pending {
		if pt.Task.ID != n.ToolUseID || strings.TrimSpace(pt.Task.Output) != "" {
			continue
		}
		t := pt.Task
		switch n.Status {
		case "failed":
			t.Status = conclusion.TaskFailed
		case "killed", "stopped":
			t.Status = conclusion.TaskCancelled
		default:
			t.Status = conclusion.TaskCompleted
		}
		if t.EndedAt.IsZero() {
			t.EndedAt = h.env.Now().UTC()
		}
		subagent.SetOutput(t, n.Result)
		h.conclude(t)
		if err := p.Put(h.in.SessionID, pt.Key, t); err != nil {
			h.senv.Log.Warn("task notification", "tool_use_id", n.ToolUseID, "error", err)
		}
	}
}

// postTask handles the PostToolUse of the subagent tool: the task
// checkpoint, with the task record, and the parent's formatted result.
func (h *agentHook) postTask(ctx context.Context, st strategy.Strategy, in strategy.TaskInput) (map[string]any, error) {
	if !h.conclusionsOn() || session.ValidateToolUseID(in.ToolUseID) != nil {
		return nil, st.TaskEnd(ctx, in)
	}
	res, _ := h.taskResult()
	key := in.ToolUseID
	if session.ValidateToolUseID(res.AgentID) == nil {
		key = res.AgentID
	}
	p := subagent.NewPending(h.senv.Repo.Root)
	t := h.pendingTask(p, key, in.ToolUseID)
	t.ID = in.ToolUseID
	if t.StartedAt.IsZero() {
		if pre, err := session.ReadPreTask(h.senv.Repo.Root, in.ToolUseID); err == nil {
			t.StartedAt = pre.Timestamp
		}
	}
	background := res.Background
	if t.Conclusion == nil && !background {
		// No subagent-stop ran (older Claude Code, or conclusions were
		// switched on mid-task): the tool response is the final message.
		t.Status, t.EndedAt = conclusion.TaskCompleted, h.env.Now().UTC()
		subagent.SetOutput(t, subagent.ResponseText(h.in.ToolResponse))
		h.conclude(t)
	}
	if err := p.Put(h.in.SessionID, key, t); err != nil {
		h.senv.Log.Warn("store subagent task", "tool_use_id", in.ToolUseID, "error", err)
	}
	if background && session.ValidateToolUseID(res.AgentID) == nil && t.Status != conclusion.TaskCompleted {
		// The subagent runs on: its subagent-stop makes the task
		// checkpoint, with its transcript.
		l := subagent.Launch{ToolUseID: in.ToolUseID, AgentID: res.AgentID, SubagentType: in.SubagentType,
			Description: in.Description, ToolName: in.ToolName, ToolInput: in.ToolInput}
		err := p.PutLaunch(h.in.SessionID, l)
		if err == nil {
			return nil, nil
		}
		h.senv.Log.Warn("record background subagent", "tool_use_id", in.ToolUseID, "error", err)
	}
	if t.Conclusion != nil {
		in.Conclusion, _ = subagent.Encode(t)
	}
	if err := st.TaskEnd(ctx, in); err != nil {
		return nil, err
	}
	if background {
		return nil, nil
	}
	return hookContext("PostToolUse", conclusion.FormatForParent(t, h.resolveOptions(ctx))), nil
}

// taskResult reads the hook's tool response as the result of a subagent
// tool call (agent.TaskResultReader); the zero TaskResult when the agent
// does not read one.
func (h *agentHook) taskResult() (agent.TaskResult, error) {
	r, ok := h.agent.(agent.TaskResultReader)
	if !ok {
		return agent.TaskResult{}, nil
	}
	return r.ReadTaskResult(h.in.ToolResponse)
}

// resolveOptions enriches the parent's view of a conclusion: artifacts
// with their size (or "missing") in the repository, memory refs that are
// note keys of the session's agent with the note's preview.
func (h *agentHook) resolveOptions(ctx context.Context) *conclusion.ResolveOptions {
	res := &conclusion.ResolveOptions{Artifacts: conclusion.NewFilesystemArtifactResolver(h.senv.Repo.Root)}
	store, err := notes.NewStore(ctx, h.senv.Repo, notes.WithAgent(string(h.agent.Name())))
	if err != nil {
		return res
	}
	res.Memory = func(ref string) string {
		if notes.ValidateKey(ref) != nil {
			return ref
		}
		n, err := store.Get(ctx, ref)
		if err != nil {
			return ref
		}
		return ref + " (note: " + n.Preview + ")"
	}
	return res
}

// delegationEnd ends a subagent task of an agent whose hooks do not say
// which subagent ran (agent.SubagentFinder): the subagent's transcript is
// found from its prompt, among those started since the task's start, and
// its result becomes the task record.
func (h *agentHook) delegationEnd(ctx context.Context, st strategy.Strategy, in strategy.TaskInput, d agent.Delegation) error {
	f, ok := h.agent.(agent.SubagentFinder)
	if !ok {
		return st.TaskEnd(ctx, in)
	}
	var since time.Time
	if pre, err := session.ReadPreTask(h.senv.Repo.Root, in.ToolUseID); err == nil {
		since = pre.Timestamp
	}
	sub, found := f.FindSubagent(in.TranscriptPath, in.SessionID, d, since)
	if !found {
		h.senv.Log.Warn("subagent transcript not found", "tool_use_id", in.ToolUseID, "subagent", d.SubagentType)
		return st.TaskEnd(ctx, in)
	}
	in.AgentID, in.SubagentTranscriptPath = sub.ID, sub.TranscriptPath
	if h.conclusionsOn() && session.ValidateToolUseID(in.ToolUseID) == nil {
		t := h.newTask(in.ToolUseID)
		t.StartedAt, t.EndedAt, t.Status = since.UTC(), h.env.Now().UTC(), conclusion.TaskCompleted
		subagent.SetOutput(t, sub.Result)
		h.conclude(t)
		// Pending, the record reaches the commit's checkpoint (and
		// explain) with the next condensation.
		if err := subagent.NewPending(h.senv.Repo.Root).Put(h.in.SessionID, in.ToolUseID, t); err != nil {
			h.senv.Log.Warn("store subagent task", "tool_use_id", in.ToolUseID, "error", err)
		}
		if rec, err := subagent.Encode(t); err == nil {
			in.Conclusion = rec
		}
	}
	return st.TaskEnd(ctx, in)
}
