// Package push sends entire's branches (entire/checkpoints/v1 and the other
// entire/<name>/v1 branches) to the checkpoint remote when the user pushes,
// for the pre-push git hook (SPEC 5.4), and fetches them back on demand.
//
// Privacy: the branches go only to the checkpoint remote (settings
// strategy_options.checkpoint_remote, default "origin"), never to another
// remote or fork the user happens to push to, and shadow branches
// (entire/<sha7>-<hash6>) and refs under refs/entire/ are never pushed.
// Guard, run by the pre-push hook, enforces this for every push, by ref
// name and by the history the pushed refs carry (a tag on a merge of the
// metadata branch is refused on its way to a fork).
//
// A push must never hang: every network call runs the git binary in its own
// session and process group with stdin detached and terminal prompts off,
// and the whole group is killed when the per-call bound runs out.
//
// When the remote branch moved, the two tips are merged in-process into a
// two-parent commit "Merge remote session logs": the union of both trees,
// the remote entry winning on identical paths, except that on
// entire/checkpoints/v1 a checkpoint written on both sides by different
// sessions keeps every session (see MergeTrees).
//
// All functions are safe for concurrent use: the local ref moves by
// compare-and-swap, so a checkpoint written during a push is merged, not
// lost.
package push
