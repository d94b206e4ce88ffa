// Package refstore keeps the render references (package renderrefs) that
// entire commands announced while an agent ran them: it lifts sentinel
// lines out of a transcript's JSON string values as the transcript is
// stored (CleanJSON), keeps the references of a session pending until a
// checkpoint is condensed, stores them in the session slot as
// references.json (deduplicated by type and ID, first kept), and renders
// them as cards hydrated from the live entities (Card, NewLookup).
//
// references.json is a JSON array of renderrefs.Reference objects, in order
// of first appearance.
package refstore
