// Package conclusion implements the delegated-task conclusion protocol: a
// subagent ends its run with a <entire:conclusion> block of YAML saying how it
// went, Parse and Enrich turn that block (or, failing that, the task's output)
// into a Conclusion with software-owned metadata, and FormatForParent renders
// the compact "[delegated-result ...]" message handed back to the parent agent.
//
// The package knows nothing about hooks, checkpoints or git; project lookup
// and the display of artifacts and memory refs are injected as plain
// functions (ProjectResolver, ArtifactResolver, MemoryRefResolver).
package conclusion
