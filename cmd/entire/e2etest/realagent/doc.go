// Package realagent runs the real Claude Code and Gemini CLI offline, for
// end-to-end tests: a scripted model server on 127.0.0.1 that speaks the
// Anthropic Messages and Gemini generateContent APIs, and a runner that
// starts a client against it with a throwaway HOME, a time limit and a
// proxy that refuses every request not meant for the server.
//
// The clients are installed by scripts/install-agents.sh into a cache
// directory (ENTIRE_AGENTS_DIR). Without them a test skips with one line;
// when CI is set, a missing client fails the test instead.
//
// Scripts are chosen by a marker in the prompt, SCRIPT:<name>. The step of
// a script is the number of model messages after the last user message
// whose own text holds the marker, so the server keeps no conversation
// state and a subagent, whose prompt carries a marker of its own, is
// scripted the same way.
package realagent
