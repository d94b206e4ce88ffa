// Package taskview renders what a committed checkpoint's session slot
// records beyond its transcript, for `entire explain`: the subagent tasks
// with their conclusions (package subagent) and the entities the agent's
// commands referenced, as cards hydrated from the live entities (package
// refstore). It reads git only and writes to the writer it is given.
package taskview
