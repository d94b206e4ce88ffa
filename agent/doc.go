// Package agent defines how entire talks to coding agents (Claude Code, Gemini
// CLI): the Agent interface and its optional capabilities (hooks, transcript
// analysis, chunking), the agent registry, transcript chunking for storage, and
// the normalized types (hook input, token usage, transcript analysis) that the
// strategies consume. Concrete agents live in sub-packages and register
// themselves with Register from init.
package agent
