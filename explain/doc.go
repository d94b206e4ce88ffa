// Package explain turns what entire stored about a piece of work into text
// for a person: the condensed transcript of a checkpoint ([User],
// [Assistant] and [Tool] lines, SPEC 1.9), the checkpoint view of
// `entire explain --checkpoint`, the checkpoint list of `entire explain`,
// and the summary prompt and response of SPEC 7.2; and what a session slot
// records beyond its transcript (WriteTasks): subagent tasks with their
// conclusions and the render references, as cards hydrated from the live
// entities (Card, NewLookup).
//
// Loader gathers a view from the repository (the metadata branch through
// checkpoint.Store, shadow branches, linked commits through one bounded git
// log); explaining one checkpoint reads that checkpoint only. The renderers
// only format: they write to an io.Writer and return its first write error.
// Nothing here prints to the process's streams, and programs run only
// through the Summarizer's injected runner.
package explain
