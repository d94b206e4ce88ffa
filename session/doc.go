// Package session stores the state of agent sessions: one JSON file per
// session under <git-common-dir>/entire-sessions/ (shared by all worktrees),
// an index that lets git hooks find the sessions of one worktree without
// parsing every state file, the phase state machine (Transition), and the
// transient per-turn files under .entire/tmp/.
//
// File formats are those of the Entire CLI 0.4.x (SPEC 3.3, 3.4); files
// written by 0.4.x are read (deprecated fields migrated) and files written
// here are readable by 0.4.x.
package session
