// Package renderrefs is the sideband protocol that lets a command run by an
// agent announce an entity it created or referenced (a checkpoint, a session,
// a note), so that a UI can render a card instead of a bare ID.
//
// A producer writes one sentinel line per reference with Emit, which does
// nothing unless the ENTIRE_RENDERABLE_REFS environment variable is exactly
// "1" (set by the agent's tool runner, never by a human's shell). A consumer
// runs Extract over the tool output to lift the references out and strip the
// sentinel lines, so the text shown to the model and the user stays clean.
//
// Wire format, one line per reference:
//
//	::entire-ref/v1::{"v":1,"type":"checkpoint","id":"a3f9c2d1e4b5","intent":"created"}
//
// The version lives in the marker, so a future v2 line is never misread by a
// v1 extractor. References are hints: only Type and ID carry weight, and a
// consumer re-fetches the entity by ID.
package renderrefs
