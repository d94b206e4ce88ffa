// Package geminicli implements the Agent interface for Gemini CLI: hook
// installation in .gemini/settings.json, hook-input parsing, session storage
// under ~/.gemini/tmp/<project hash>/chats, and analysis and chunking of both
// Gemini transcript containers (single JSON document and JSONL). Importing the
// package registers the agent as "gemini".
package geminicli
