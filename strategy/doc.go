// Package strategy decides when and how an agent's work becomes
// checkpoints: manual-commit (the default) snapshots the work tree onto a
// shadow branch after every agent turn and condenses the session onto
// entire/checkpoints/v1 when the user commits; auto-commit commits after
// every turn. Both are driven by the hook handlers in package hooks.
//
// Every entry point costs what the change costs: at most one `git status`
// per agent hook, transcripts read from the last stored offset, trees built
// from the changed paths only.
package strategy
