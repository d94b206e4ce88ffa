// Package external is Entire's external-agent protocol, version 1: any
// program named entire-agent-<name> on an absolute PATH entry acts as the
// agent <name> (SPEC 10.4; Entire's docs/architecture/external-agent-
// protocol.md). One subcommand per operation, stateless, JSON on stdin and
// stdout (transcripts as raw bytes), exit 0 for success and the error on
// stderr, run in the repository root with ENTIRE_REPO_ROOT and
// ENTIRE_PROTOCOL_VERSION=1 set.
//
// Discovery runs what it finds, so it runs only when the untracked
// .entire/settings.local.json sets external_agents (Discover's caller
// checks). Built-in agents win a name. A program must answer info with
// protocol version 1 within InfoTimeout.
//
// Everything a program returns is someone else's input: every call is
// bounded in time (the program's process group is killed past its limit)
// and in the bytes read back; a session_ref must stay inside the session
// directory the program named; file lists are taken as the agent's claims
// and kept inside the repository by the callers; errors are escaped. A
// program that hangs, crashes or answers garbage makes the one operation
// fail with one clear line, never the agent's hook or a commit.
//
// An Agent implements the agent package's interfaces like a built-in
// agent. Its transcript is copied, through read-transcript, to a file in
// the git directory (CopyDir), which the strategies read as any agent's
// transcript file; it is stored whole and split and joined by the
// program's chunk-transcript and reassemble-transcript.
package external
