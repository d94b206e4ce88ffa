// Package hooks handles the hook calls of the agents (`entire hooks
// <agent> <verb>`) and of git (`entire hooks git <hook>`): cheap early exits
// first (not a repository, entire disabled), then the input parsed, logged
// and handed to the configured strategy, and the exit status each caller's
// protocol expects. A hook never breaks the agent or blocks a commit
// because of an internal failure.
//
// Besides checkpoints, the agent hooks serve hides and notes: Claude Code's
// post-tool (PostToolUse, every tool) and Gemini CLI's after-tool store a
// tool result over strategy_options.hide_threshold_bytes as a hide of the
// session and give the agent page 1 instead (a length check is all a small
// result costs), and session-start gives the agent its notes
// (SessionContext). RegisterMCP and UnregisterMCP add and remove the
// `entire mcp` server in the agents' MCP configuration.
package hooks
