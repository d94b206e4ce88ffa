// Package rewind lists the points a session can be rewound to and restores
// them: the work tree of a temporary checkpoint (a step on a shadow branch),
// byte for byte, together with the agent's transcript as of that step, or
// only the transcripts of a committed checkpoint (logs-only).
//
// Every change is preceded by an undo point (the newest ten kept): plain
// files under <git-dir>/entire-undo/<name>/ of the work tree (package
// strategy/rewind/undostore), outside refs/ and the object database, so no push
// carries them and `git gc --prune=now` keeps them. A point saves only
// what the rewind removes or changes, raw and unredacted, like git stash:
// the content of the files it overwrites or deletes (with their modes;
// symbolic links as their targets), the hash of the other dirty paths, the
// index entries that differ from HEAD, the notes trees, and each
// transcript as a delta against what the rewind writes back (for a
// transcript cut back to an earlier turn, the cut tail). Undo returns to
// it. Undo points that older versions kept as refs under refs/entire/undo/
// are moved into the store on first use and the refs deleted. DeleteUndo
// deletes them all (UndoLocation says where they are, for messages).
//
// The cost of a rewind follows the number of paths that differ, never the
// size of the repository: one `git status`, tree diffs that skip equal
// subtrees, and reads of only the candidate paths. The work tree is never
// walked. Paths under .git, .entire and the agents' configuration
// directories (agent.IsProtectedDir) and gitignored files are never
// touched.
//
// A rewind changes only the paths that a recorded turn (prompt to Stop,
// shell commands included) of some session of the work tree changed, as
// the session states' change records say (session.ChangeRecord): paths
// only the user changed are kept (Plan.UserKept). A path a turn changed
// that the user edited after the point, between later turns (as a turn
// start measured it) or since the newest step, is restored all the same
// and marked (FileChange.OverwritesEdits); the undo point keeps the user's
// version.
//
// Shared shadow branches: a rewind never moves a branch tip back; it
// records the rewound state as a new step of the session ("Rewind to
// <sha7>: ..."), and an undo records the state it returns to the same way.
// Paths that another live session of the work tree touched are left alone
// unless this session touched them too, in which case the rewind is
// refused when they changed after this session's newest step.
//
// After writing a transcript back, the session state's shadow_transcript is
// dropped and transcript_cursor is set to the end of the written
// transcript (nil for Gemini's single-document format), so the next turn
// analyses only its own entries.
//
// A Rewinder writes human-oriented progress to its Progress writer only; it
// never prints to stdout.
//
// Resume is the other way a committed checkpoint's transcripts come back:
// it checks a branch out (fetching it, and the checkpoint metadata, when
// they are not here) and writes the sessions of the branch's latest
// checkpoint where their agents resume them (agent.SessionStore), asking
// through a ResumeAsker before it overwrites newer local transcripts or
// resumes from an older checkpoint, and says which older sessions a
// logs-only rewind would restore.
package rewind
