// Package notes is a per-agent, cross-session key/value store of durable
// facts that an agent writes with the note_* tools and that people read and
// edit with `entire note`. Notes are not conversation history: they are
// what the user expects the agent to remember between sessions.
//
// Notes live in git, on the branch entire/notes/v1, one directory per agent
// name (claude-code, gemini, ...) holding one JSON blob per key
// (<agent>/<key>.json with content, preview, pin flag and timestamps). So
// they are pushed with the metadata, and a checkpoint can hold the notes
// tree of its moment (TreeHash) and bring it back on rewind (Restore).
// Every change is one commit made by compare-and-swap on the branch ref and
// retried when another writer moved it: concurrent writers lose nothing, and
// quotas hold across them.
package notes
