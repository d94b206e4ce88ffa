// Package subagent keeps the records of delegated subagent tasks: it builds
// the conclusion.Task record of a finished subagent from what the agent's
// hooks report (its last message, or the end of its own transcript, or the
// parent's tool response), keeps records pending in the repository's
// transient directory until a checkpoint takes them, and reads them back
// from committed checkpoints for display.
//
// On disk a record is the JSON encoding of conclusion.Task (its conclusion
// nested under "conclusion") in a file named conclusion.json: in a task
// checkpoint's metadata (.entire/metadata/<session>/tasks/<id>/) on the
// shadow branch, and in the session slot of a committed checkpoint under
// tasks/<id>/conclusion.json.
//
// Pending records live in .entire/tmp/subagents/<session>/<key>.json, keyed
// by the subagent's agent ID (or the tool use ID when the agent reports
// none). The package does no git writes and never prints.
package subagent
