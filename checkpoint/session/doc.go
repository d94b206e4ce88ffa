// Package session stores the state of agent sessions: one JSON file per
// session under <git-common-dir>/entire-sessions/ (shared by all worktrees),
// an index that lets git hooks find the sessions of one worktree without
// parsing every state file, the phase state machine (Transition), and the
// transient per-turn files under .entire/tmp/.
//
// File formats are those of the Entire CLI 0.4.x (SPEC 3.3, 3.4); files
// written by 0.4.x are read (deprecated fields migrated) and files written
// here are readable by 0.4.x.
//
// # The index
//
// entire-sessions/.index/index holds one line per state file: the file's
// fingerprint (inode, size, mtime), its end time, a hash of its worktree
// path, and a JSON Summary. Save and Delete update it under an flock
// (.index/lock) with an atomic replace, so concurrent writers in any number
// of processes never lose each other's entries. Store.Find trusts a line
// only while its fingerprint matches the file on disk, and re-parses (and
// repairs the line for) any file that was written behind its back; so the
// index can be deleted, truncated or stale at any time without Find ever
// returning stale data. A query for one worktree costs a directory read, an
// lstat per state file, one index read and the JSON decode of the matching
// lines only (3-5 ms for 1000 sessions, against 1-2 s for parsing them all).
package session
