package hooks

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/internal/logging"
	"github.com/entirecli/entire/internal/panics"
	"github.com/entirecli/entire/strategy"
)

// sessionStartMessage is what SessionStart shows the user (SPEC 2.6).
const sessionStartMessage = "\n\nPowered by Entire:\n  This conversation will be linked to your next commit."

// RunAgentHook handles `entire hooks <agent> <verb>` and returns the exit
// status for the agent. How a hook answers, and how it reports a failure,
// is the agent's (agent.HookAnswerer): Claude Code treats exit 1 as a
// non-blocking error (shown to the user) and blocks only on 2; Gemini CLI
// blocks on most non-zero codes, so a Gemini hook always exits 0 and
// reports problems in its JSON answer. Outside a repository, or with entire disabled, a hook
// does nothing and exits 0; so does a verb the agent no longer installs
// (agent.NoOpHookVerbs), before even looking for the repository, and a
// verb entire does not know, which is logged as a warning (nothing on
// stdout, which the agent may read into its context).
//
// A panic anywhere in the hook, in its goroutine or one it started, is
// recovered and answered like any other failure.
func RunAgentHook(ctx context.Context, env Env, agentName agent.AgentName, verb string) (code int) {
	start := env.Now()
	ag, err := agent.Get(agentName)
	if err != nil {
		env.warnf("entire: %v\n", err)
		return 0
	}
	// fail answers a failure the way the agent reads it (agent.HookAnswerer):
	// in its answer, or on stderr. The message may carry what the payload
	// or the repository held (a panic's value, a parse error's bytes): it
	// is escaped.
	fail := func(err error) int {
		msg := iostreams.Escape(err.Error())
		answer, code := agent.FailureAnswer(ag, msg)
		if answer != nil {
			writeJSON(env.Stdout, answer)
			return code
		}
		env.warnf("%s\n", msg)
		return code
	}
	// answerEmpty prints what the agent expects from a hook with nothing
	// to say.
	answerEmpty := func() {
		if answer := agent.EmptyAnswer(ag); answer != nil {
			writeJSON(env.Stdout, answer)
		}
	}
	var perr error
	defer func() {
		if perr != nil {
			msg := iostreams.Escape(perr.Error())
			answer, c := agent.FailureAnswer(ag, msg)
			if answer != nil {
				writeJSON(env.Stdout, answer)
			}
			code = c
			env.warnf("entire hooks %s %s: %s\n", agentName, verb, msg)
		}
	}()
	defer panics.Recover(&perr)
	if agent.IsNoOpHookVerb(ag, verb) {
		drain(env.Stdin)
		answerEmpty()
		return 0
	}
	repo, err := env.OpenRepo()
	var hs hookSettings
	if err == nil {
		hs = loadSettings(repo.Root)
	}
	if err != nil || !hs.enabled() {
		drain(env.Stdin)
		answerEmpty()
		return 0
	}
	if ep, isEventParser := ag.(agent.HookEventParser); isEventParser {
		return runEventHook(ctx, env, ag, ep, verb, repo, hs, start, fail, answerEmpty)
	}
	resolver, _ := ag.(agent.HookVerbResolver)
	hookType, ok := agent.HookType(""), false
	if resolver != nil {
		hookType, ok = resolver.HookTypeForVerb(verb)
	}
	if !ok {
		// Whatever a hook prints on stdout may reach the agent's context:
		// an unknown verb (a newer or hand-edited hook entry) says nothing
		// there and is logged.
		drain(env.Stdin)
		if _, log, err := open(env, repo, "hooks", hs); err == nil {
			log.Warn("unknown hook verb", "agent", string(agentName), "hook", verb)
			log.Close()
		}
		return 0
	}
	in, err := ag.ParseHookInput(hookType, env.Stdin)
	senv, log, oerr := open(env, repo, "hooks", hs)
	if oerr != nil {
		return fail(oerr)
	}
	defer log.Close()
	if err != nil {
		log.Warn("bad hook input", "agent", string(agentName), "hook", verb, "error", err)
		return fail(fmt.Errorf("entire hooks %s %s: %w", agentName, verb, err))
	}
	if namer, ok := ag.(agent.HookToolNamer); ok && in.ToolName == "" {
		in.ToolName = namer.ToolNameForVerb(verb, in.ToolInput)
	}
	return handleHook(ctx, env, senv, log, ag, in, verb, hookType, start, fail, answerEmpty)
}

// handleHook runs a parsed hook call: the watcher, the turn end's
// process, the pending work of a killed post-commit, the handler, the
// session's failure count, and the answer.
func handleHook(ctx context.Context, env Env, senv *strategy.Env, log *logging.Logger, ag agent.Agent, in *agent.HookInput,
	verb string, hookType agent.HookType, start time.Time, fail func(error) int, answerEmpty func()) int {
	agentName := ag.Name()
	switch hookType {
	case agent.HookSessionStart, agent.HookUserPromptSubmit, agent.HookStop:
		useWatcher(senv, true)
	case agent.HookSessionEnd:
	default:
		useWatcher(senv, false)
	}
	if hookType == agent.HookStop || hookType == agent.HookUserPromptSubmit {
		// A turn end's step is written by a process of its own; where the
		// session's finish lock cannot be handed to one, by the hook.
		if session.CanHandOverLocks() {
			senv.FinishLater = finishLater(senv)
		} else if hookType == agent.HookStop {
			senv.Prewarm() // it redacts what it stores: the rules are built meanwhile
		}
	}
	log.Debug("hook invoked", "agent", string(agentName), "hook", verb, "session_id", in.SessionID)
	if err := MarkHooksRan(senv.Repo, agentName); err != nil {
		log.Warn("note that the hooks ran", "error", err)
	}
	strategy.CompletePending(ctx, senv) // what a killed post-commit left, before the turn moves on
	h := &agentHook{env: env, senv: senv, agent: ag, in: in}
	out, err := h.safeDispatch(ctx, verb, hookType)
	log.Info("hook completed", "agent", string(agentName), "hook", verb, "session_id", in.SessionID,
		"duration_ms", since(env, start), "success", err == nil)
	recordOutcome(senv, in.SessionID, verb, err)
	if err != nil {
		log.Warn("hook failed", "agent", string(agentName), "hook", verb, "error", err)
		logPanic(log, err)
		if errors.Is(err, strategy.ErrNoCommits) {
			// Nothing is broken: say so once, as the original did.
			return fail(err)
		}
		return fail(fmt.Errorf("entire hooks %s %s: %w", agentName, verb, err))
	}
	switch w, writes := ag.(agent.HookAnswerWriter); {
	case writes:
		if b := w.WriteHookAnswer(hookType, out); len(b) > 0 {
			env.Stdout.Write(b)
		}
	case out != nil:
		writeJSON(env.Stdout, out)
	default:
		answerEmpty()
	}
	return 0
}

// runEventHook is RunAgentHook for an agent whose program tells each
// call's kind (agent.HookEventParser): a call that is no event answers
// empty; a program that fails or answers garbage is logged, said in one
// line and answered as the agent's failure (an external agent's never
// blocks).
func runEventHook(ctx context.Context, env Env, ag agent.Agent, ep agent.HookEventParser, verb string, repo *gitrepo.Repo,
	hs hookSettings, start time.Time, fail func(error) int, answerEmpty func()) int {
	senv, log, err := open(env, repo, "hooks", hs)
	if err != nil {
		drain(env.Stdin)
		return fail(err)
	}
	defer log.Close()
	warn := func(msg string, err error) {
		log.Warn(msg, "agent", string(ag.Name()), "hook", verb, "error", err)
	}
	in, err := ep.ParseHookEvent(verb, env.Stdin, warn)
	drain(env.Stdin)
	if err != nil {
		log.Warn("bad hook input", "agent", string(ag.Name()), "hook", verb, "error", err)
		return fail(fmt.Errorf("entire hooks %s %s: %w", ag.Name(), verb, err))
	}
	if in == nil {
		log.Debug("hook call is no event", "agent", string(ag.Name()), "hook", verb)
		answerEmpty()
		return 0
	}
	return handleHook(ctx, env, senv, log, ag, in, verb, in.HookType, start, fail, answerEmpty)
}

// recordOutcome keeps the session's count of hook failures since its last
// successful hook, which `entire status` shows: a failure adds one, a
// success clears it. ErrNoCommits is not a failure. Problems doing so are
// logged.
func recordOutcome(senv *strategy.Env, sessionID, verb string, err error) {
	if sessionID == "" || session.ValidateID(sessionID) != nil {
		return
	}
	var rerr error
	if err == nil || errors.Is(err, strategy.ErrNoCommits) {
		rerr = senv.Sessions.ClearFaults(sessionID)
	} else {
		rerr = senv.Sessions.RecordFault(sessionID, verb, err)
	}
	if rerr != nil {
		senv.Log.Warn("hook failure count", "error", rerr)
	}
}

// agentHook is one agent hook call.
type agentHook struct {
	env   Env
	senv  *strategy.Env
	agent agent.Agent
	in    *agent.HookInput
}

// safeDispatch is dispatch with a panic turned into its error (a
// *panics.Error), so that it is logged and counted as the session's
// failure like any other.
func (h *agentHook) safeDispatch(ctx context.Context, verb string, t agent.HookType) (out map[string]any, err error) {
	defer panics.Recover(&err)
	panics.Inject(h.env.Getenv, "hook")
	return h.dispatch(ctx, verb, t)
}

// logPanic logs the stack of a recovered panic.
func logPanic(log *logging.Logger, err error) {
	var pe *panics.Error
	if errors.As(err, &pe) {
		log.Error("panic recovered", "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
	}
}

// dispatch runs the handler of a hook type and returns the JSON answer
// for the agent (nil for none).
func (h *agentHook) dispatch(ctx context.Context, verb string, t agent.HookType) (map[string]any, error) {
	st := strategy.New(h.senv)
	ti := strategy.TurnInput{Agent: h.agent, SessionID: h.in.SessionID, TranscriptPath: h.in.SessionRef, Prompt: h.in.UserPrompt, Cwd: h.in.Cwd}
	if ti.SessionID == "" {
		return nil, errors.New("no session_id in hook input")
	}
	if err := session.ValidateID(ti.SessionID); err != nil {
		return nil, fmt.Errorf("session_id: %w", err)
	}
	// The payload names the transcript: refuse a path that is no
	// transcript of this agent before any handler opens it (a missing
	// file is each handler's business).
	if ti.TranscriptPath != "" {
		if err := agent.CheckTranscript(h.agent, ti.TranscriptPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("transcript_path: %w", err)
		}
	}
	switch t {
	case agent.HookSessionStart:
		others, err := st.SessionStart(ctx, ti)
		if err != nil {
			return nil, err
		}
		msg := sessionStartMessage
		if others > 0 {
			msg += fmt.Sprintf("\n  %d other active conversation(s) in this workspace will also be included.\n  Use 'entire status' for more information.", others)
		}
		out := map[string]any{"systemMessage": msg}
		// Notes are context, not a condition of the session: a problem
		// reading them is logged and the session starts without them.
		if text, err := SessionContext(ctx, h.senv.Repo, string(h.agent.Name()), h.env.Now(), MaxContextChars); err != nil {
			h.senv.Log.Warn("notes for session context", "error", err)
		} else if text != "" {
			out["hookSpecificOutput"] = map[string]any{"hookEventName": "SessionStart", "additionalContext": text}
		}
		return out, nil
	case agent.HookSessionEnd:
		return nil, st.SessionEnd(ctx, ti)
	case agent.HookUserPromptSubmit:
		if tn, ok := h.agent.(agent.TaskNotifier); ok {
			if n, ok := tn.TaskNotification(ti.Prompt); ok {
				// No person's prompt: the model call it starts
				// continues the session's turns.
				h.taskNotified(n)
				ti.Prompt = ""
			}
		}
		return nil, st.TurnStart(ctx, ti)
	case agent.HookStop:
		ti.End = agent.TurnEnd{FinalAnswer: h.in.LastAssistantMessage, HasFinalAnswer: h.in.HasLastAssistantMessage}
		return nil, st.TurnEnd(ctx, ti)
	case agent.HookSubagentStart:
		return h.subagentStart(), nil
	case agent.HookSubagentStop:
		return nil, h.subagentStop(ctx, st, ti)
	case agent.HookPreToolUse:
		if err := h.startPromptlessTurn(ctx, st, ti); err != nil {
			return nil, err
		}
		d, ok := h.delegation()
		if !ok {
			return nil, nil
		}
		return nil, st.TaskStart(ctx, h.taskInput(ti, d))
	case agent.HookPostToolUse:
		return h.postToolUse(ctx, st, ti, agent.PostToolRoleOf(h.agent, verb))
	}
	return nil, nil
}

// startPromptlessTurn starts the turn at a tool event of an agent whose
// turns may come without a prompt event (agent.PromptlessTurns) when the
// session has no turn in progress: the state before the turn is then
// taken before its first tool changes anything. A session in a turn costs
// one read of its state.
func (h *agentHook) startPromptlessTurn(ctx context.Context, st strategy.Strategy, ti strategy.TurnInput) error {
	if !agent.StartsPromptlessTurns(h.agent) {
		return nil
	}
	if s, err := h.senv.Sessions.Load(ti.SessionID); err == nil && s != nil && s.Phase == session.PhaseActive {
		return nil
	}
	return st.TurnStart(ctx, ti)
}

// postToolUse runs what a post-tool verb stands for (agent.PostToolRole):
// the end of a subagent tool call, the todo tools, the hiding of large
// results.
func (h *agentHook) postToolUse(ctx context.Context, st strategy.Strategy, ti strategy.TurnInput, role agent.PostToolRole) (map[string]any, error) {
	if role&agent.PostToolDelegation != 0 {
		if d, ok := h.delegation(); ok {
			if _, finds := h.agent.(agent.SubagentFinder); !finds {
				return h.postTask(ctx, st, h.taskInput(ti, d))
			}
			if err := h.delegationEnd(ctx, st, h.taskInput(ti, d), d); err != nil {
				return nil, err
			}
		}
	}
	if role&agent.PostToolTodos != 0 {
		return nil, h.postTodo(ctx, st, ti)
	}
	if role&agent.PostToolHides != 0 {
		return h.postTool()
	}
	return nil, nil
}

// delegation reports whether the hook's tool call starts a subagent.
func (h *agentHook) delegation() (agent.Delegation, bool) {
	d, ok := h.agent.(agent.Delegator)
	if !ok {
		return agent.Delegation{}, false
	}
	return d.Delegation(h.in.ToolName, h.in.ToolInput)
}

// taskInput is the task of a subagent tool call.
func (h *agentHook) taskInput(ti strategy.TurnInput, d agent.Delegation) strategy.TaskInput {
	in := strategy.TaskInput{TurnInput: ti, ToolUseID: h.toolUseID(), ToolName: h.in.ToolName, ToolInput: h.in.ToolInput,
		AgentID: h.in.AgentID, SubagentType: d.SubagentType, Description: d.Description}
	if res, err := h.taskResult(); err == nil && res.AgentID != "" {
		in.AgentID = res.AgentID
	}
	return in
}

// toolUseID returns the payload's tool use ID or, for a client that sends
// none (Gemini CLI), one derived from the session, its current turn and the
// call itself, the same when the call starts and when it ends:
// task-<16 hex digits> (its first 12 characters, which task subjects show,
// tell tasks apart).
func (h *agentHook) toolUseID() string {
	if h.in.ToolUseID != "" {
		return h.in.ToolUseID
	}
	turn := ""
	if st, err := h.senv.Sessions.Load(h.in.SessionID); err == nil {
		turn = st.TurnID
	}
	input := h.in.ToolInput
	var compact bytes.Buffer
	if json.Compact(&compact, input) == nil {
		input = compact.Bytes()
	}
	sum := sha256.New()
	for _, part := range [][]byte{[]byte(h.in.SessionID), []byte(turn), []byte(h.in.ToolName), input} {
		sum.Write(part)
		sum.Write([]byte{0})
	}
	return "task-" + hex.EncodeToString(sum.Sum(nil)[:8])
}

// postTodo hands a call of one of the agent's todo tools to the strategy
// (an incremental task checkpoint); calls of other tools are ignored. A
// call that cannot be read still marks progress, without a description.
func (h *agentHook) postTodo(ctx context.Context, st strategy.Strategy, ti strategy.TurnInput) error {
	tt, ok := h.agent.(agent.TodoTracker)
	if !ok {
		return nil
	}
	call, ok, err := tt.ParseTodoCall(h.in.ToolName, h.in.ToolInput, h.in.ToolResponse)
	if !ok {
		return nil
	}
	if err != nil {
		h.senv.Log.Warn("todo tool call", "tool", h.in.ToolName, "error", err)
	}
	return st.TaskProgress(ctx, strategy.TaskInput{TurnInput: ti, ToolUseID: h.in.ToolUseID, ToolName: h.in.ToolName,
		ToolInput: h.in.ToolInput, AgentID: h.in.AgentID, Todos: call})
}

func writeJSON(w io.Writer, v any) {
	b, _ := json.Marshal(v)
	w.Write(append(b, '\n'))
}

// drain reads and discards stdin so the agent never blocks writing it.
func drain(r io.Reader) {
	if r != nil {
		io.Copy(io.Discard, r)
	}
}
