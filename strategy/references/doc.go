// Package references keeps the render references (package renderrefs)
// that entire commands announced while an agent ran them: it lifts
// sentinel lines out of a transcript's JSON string values as the
// transcript is stored (CleanJSON), keeps the references of a session
// pending until a checkpoint is condensed, and stores them in the session
// slot as references.json (deduplicated by type and ID, first kept).
// Package explain renders them as cards.
//
// references.json is a JSON array of renderrefs.Reference objects, in order
// of first appearance.
package references
