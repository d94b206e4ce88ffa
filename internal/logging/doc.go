// Package logging opens entire's JSON-lines log, <repo root>/.entire/logs/entire.log,
// as a log/slog logger with the level resolved from ENTIRE_LOG_LEVEL, the
// settings and the INFO default, and defines the standard attribute keys
// (component, session_id, agent, hook, duration_ms, ...).
//
// It is built for the hook path, which opens the log on every invocation:
// opening costs a mkdir, a stat and an open; records are buffered and
// written on Close; there are no goroutines. Policy: never log prompt text,
// file contents or command output.
package logging
