package strategy

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/internal/settings"
)

// Redactor removes secrets from what is about to become a git object. Lines
// are single JSONL lines (newline excluded); text is any other text. The
// same input always gives the same output.
type Redactor interface {
	JSONLine(line []byte) []byte
	Text(s string) string
}

// Prewarm lets a redactor that builds its rules lazily start doing so in
// the background, so that a hook that will redact pays for it while it
// waits on git. Calling it more than once is harmless.
func (e *Env) Prewarm() {
	if p, ok := e.Redactor.(interface{ Prewarm() }); ok {
		p.Prewarm()
	}
}

// rules returns the fingerprint of the redaction rules in force, "" when
// the redactor has none (nothing is then redacted again).
func (e *Env) rules() string {
	if f, ok := e.Redactor.(interface{ Fingerprint() string }); ok {
		return f.Fingerprint()
	}
	return ""
}

// NoRedaction is a Redactor that changes nothing (tests only).
type NoRedaction struct{}

// JSONLine returns line unchanged.
func (NoRedaction) JSONLine(line []byte) []byte { return line }

// Text returns s unchanged.
func (NoRedaction) Text(s string) string { return s }

// Env is what a strategy works with. All fields are required unless noted.
type Env struct {
	Repo     *gitrepo.Repo
	Sessions *session.Store
	Settings *settings.Settings
	Redactor Redactor
	Log      *slog.Logger
	// Stderr receives progress lines meant for a person.
	Stderr io.Writer
	Now    func() time.Time
	// After waits like time.After (nil: time.After); with Now it is the
	// clock of the turn-end wait, injected by tests.
	After func(time.Duration) <-chan time.Time
	// FinishLater, when set, has the session's pending turn ends finished
	// (ManualCommit.FinishTurnEnds) by a process of their own after the
	// hook returned, unless one already runs; nil makes the hook finish
	// them at once.
	FinishLater func(sessionID string) error
	// CondenseLater, when set, starts a process of its own that completes
	// the condensations marked pending (CompletePending): what post-commit
	// does instead of condensing while git waits when a session's turn end
	// is still storing tens of megabytes (condenseLaterAbove). nil makes
	// post-commit always condense at once.
	CondenseLater func() error
	// EnsureGitHooks, when set, reinstalls entire's git hooks if they are
	// missing or are not the shims this version writes (localDev: those of
	// a development build). Every turn start calls it, so it must cost no
	// git call when all is in place. The hook layer provides it; nil
	// leaves the git hooks alone.
	EnsureGitHooks func(localDev bool) error
	// Confirmer, when set, asks the person committing whether to link a
	// `git commit -m` commit to a session; nil means nobody is at a
	// terminal, and such a commit is linked without asking.
	Confirmer LinkConfirmer
	// Getenv looks up the process environment.
	Getenv func(string) string
	// CLIVersion is recorded in metadata.
	CLIVersion string
}

// printf writes a progress line to e.Stderr (nothing when nil). What it
// names may come from someone else (a task subject from the agent's
// payload, an error quoting git or a stored state): the line is escaped
// (iostreams.Escape), so that no escape sequence reaches the terminal.
func (e *Env) printf(format string, a ...any) { iostreams.Printf(e.Stderr, format, a...) }

// checkpoints is the store of committed checkpoints; it redacts the
// metadata of every write with e.Redactor, the one place where the strings
// of metadata.json and of metadata commit messages are redacted.
func (e *Env) checkpoints() *checkpoint.Store {
	return checkpoint.NewStore(e.Repo, e.Now).WithRedaction(e.Redactor.Text).WithLayout(e.layout())
}

// layout is the checkpoint layout the settings name (SPEC 10.1); a type
// this version does not know is logged, and checkpoints go to refs that
// are not pushed (push.Resolve).
func (e *Env) layout() checkpoint.Layout {
	if e.Settings == nil {
		return checkpoint.LayoutBranch
	}
	l, err := checkpoint.LayoutOf(e.Settings.CheckpointsType())
	if err != nil && e.Log != nil {
		e.Log.Warn("checkpoint layout", "error", err)
	}
	return l
}

// TurnInput is a normalised agent event that concerns one session.
type TurnInput struct {
	Agent          agent.Agent
	SessionID      string
	TranscriptPath string
	Prompt         string
	// Cwd is the agent's working directory, for resolving relative paths
	// in the transcript ("" means the repository root).
	Cwd string
	// End is what a turn-end hook said about the turn (zero otherwise).
	End agent.TurnEnd
}

// TaskInput is a subagent (Task/Agent tool) event.
type TaskInput struct {
	TurnInput
	ToolUseID    string
	SubagentType string
	Description  string
	AgentID      string
	// SubagentTranscriptPath is the subagent's own transcript when the
	// caller found it (agent.SubagentFinder); "" lets the strategy look
	// for it by AgentID.
	SubagentTranscriptPath string
	// Todos is what the call of a todo tool did (post-todo); it describes
	// the incremental checkpoint.
	Todos agent.TodoCall
	// ToolName and ToolInput are the incremental checkpoint's data.
	ToolName  string
	ToolInput []byte
	// Conclusion is the subagent's task record (package subagent's
	// conclusion.json), stored in the task checkpoint's metadata; nil: none.
	Conclusion []byte
}

// Strategy is what the hook handlers drive.
type Strategy interface {
	// Name is "manual-commit" or "auto-commit".
	Name() string
	// SessionStart handles the agent starting or resuming a session and
	// returns how many other sessions with checkpoints share its worktree
	// and base commit.
	SessionStart(ctx context.Context, in TurnInput) (others int, err error)
	// SessionEnd marks the session ended.
	SessionEnd(ctx context.Context, in TurnInput) error
	// TurnStart records the state before a prompt runs.
	TurnStart(ctx context.Context, in TurnInput) error
	// TurnEnd saves the turn as a checkpoint (if anything changed) and ends
	// the turn.
	TurnEnd(ctx context.Context, in TurnInput) error
	// TaskStart records the state before a subagent runs.
	TaskStart(ctx context.Context, in TaskInput) error
	// TaskEnd saves a subagent's work as a task checkpoint.
	TaskEnd(ctx context.Context, in TaskInput) error
	// TaskProgress saves an incremental task checkpoint.
	TaskProgress(ctx context.Context, in TaskInput) error
}

// GitHooks is implemented by strategies that act on the user's commits.
type GitHooks interface {
	PrepareCommitMsg(ctx context.Context, msgFile, source string) error
	CommitMsg(ctx context.Context, msgFile string) error
	PostCommit(ctx context.Context) error
	// PostRewrite handles git's post-rewrite hook: kind is "amend" or
	// "rebase", rewrites git's list of replaced commits.
	PostRewrite(ctx context.Context, kind string, rewrites []Rewrite) error
}

// New returns the strategy configured in env's settings: AutoCommit for
// "auto-commit", else ManualCommit.
func New(env *Env) Strategy {
	if env.Settings != nil && env.Settings.StrategyName() == checkpoint.StrategyAutoCommit {
		return NewAutoCommit(env)
	}
	return &ManualCommit{env: env}
}
