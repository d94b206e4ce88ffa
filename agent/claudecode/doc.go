// Package claudecode implements the Agent interface for Claude Code: hook
// installation in .claude/settings.json, hook-input parsing, session storage
// under ~/.claude/projects, and streaming analysis and chunking of Claude
// Code's JSONL transcripts. Importing the package registers the agent as
// "claude-code".
package claudecode
