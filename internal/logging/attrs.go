package logging

import (
	"log/slog"
	"time"
)

// Standard attribute keys. Use these (or the helpers below) so that the log
// stays greppable across packages.
const (
	KeyComponent    = "component"     // hooks, checkpoint, session, attribution, summarize, rewind, resume, cleanup, ...
	KeySessionID    = "session_id"    // agent session ID
	KeyAgent        = "agent"         // agent name, e.g. claude-code
	KeyHook         = "hook"          // hook verb, e.g. stop, post-commit
	KeyHookType     = "hook_type"     // agent, subagent, tool, git, model
	KeyStrategy     = "strategy"      // manual-commit, auto-commit
	KeyDurationMS   = "duration_ms"   // int milliseconds
	KeySuccess      = "success"       // bool
	KeyToolUseID    = "tool_use_id"   // tool use ID
	KeyCheckpointID = "checkpoint_id" // 12-hex checkpoint ID
	KeyShadowBranch = "shadow_branch" // entire/<sha7>-<hash6>
)

// Component returns the component attribute.
func Component(name string) slog.Attr { return slog.String(KeyComponent, name) }

// SessionID returns the session_id attribute.
func SessionID(id string) slog.Attr { return slog.String(KeySessionID, id) }

// Agent returns the agent attribute.
func Agent(name string) slog.Attr { return slog.String(KeyAgent, name) }

// Hook returns the hook attribute.
func Hook(name string) slog.Attr { return slog.String(KeyHook, name) }

// HookType returns the hook_type attribute.
func HookType(t string) slog.Attr { return slog.String(KeyHookType, t) }

// Strategy returns the strategy attribute.
func Strategy(name string) slog.Attr { return slog.String(KeyStrategy, name) }

// Duration returns the duration_ms attribute: d in whole milliseconds.
func Duration(d time.Duration) slog.Attr { return slog.Int64(KeyDurationMS, d.Milliseconds()) }

// Success returns the success attribute.
func Success(ok bool) slog.Attr { return slog.Bool(KeySuccess, ok) }

// CheckpointID returns the checkpoint_id attribute.
func CheckpointID(id string) slog.Attr { return slog.String(KeyCheckpointID, id) }

// ToolUseID returns the tool_use_id attribute.
func ToolUseID(id string) slog.Attr { return slog.String(KeyToolUseID, id) }

// ShadowBranch returns the shadow_branch attribute.
func ShadowBranch(name string) slog.Attr { return slog.String(KeyShadowBranch, name) }

// ForComponent returns l with the component attribute set.
func (l *Logger) ForComponent(name string) *slog.Logger {
	return l.With(KeyComponent, name)
}

// WithComponent is ForComponent as a Logger: it writes to l's file, and
// closing either closes both. Set the component once: a second one would
// repeat the key.
func (l *Logger) WithComponent(name string) *Logger {
	return &Logger{Logger: l.ForComponent(name), out: l.out, path: l.path}
}
