// Package proc starts processes that must not share the caller's terminal
// or process group: git subprocesses that are killed as a group on
// cancellation, and background work that outlives a hook.
package proc
