// Package gitrepo is entire's small git layer: it opens a repository the way
// git does (subdirectories, linked worktrees, GIT_DIR from a hook's
// environment), writes blobs, trees and commits in-process, builds a new tree
// from a parent tree plus a list of changed paths without touching unchanged
// subtrees, updates refs by compare-and-swap using git's own lock-file
// protocol, and runs the few git commands that are faster in the git binary
// than in go-git (work-tree status, network transfers).
//
// Runner is the one way entire runs the git binary (test helpers aside):
// the context, a normalised environment, a default timeout, and on request
// a process group of its own that is killed as a whole. ReadBatch, built on
// it, streams objects through one `git cat-file --batch`.
//
// Cost model: every operation here grows with the number of paths it is
// given, never with the size of the repository or its work tree.
package gitrepo
