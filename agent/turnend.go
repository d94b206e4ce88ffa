package agent

// TurnEnd is what a turn-end hook (Claude Stop, Gemini AfterAgent) says
// about the turn that just ended.
type TurnEnd struct {
	// FinalAnswer is the turn's final assistant text as the client sent it
	// (Claude `last_assistant_message`, Gemini `prompt_response`); "" when
	// absent or empty.
	FinalAnswer string
	// HasFinalAnswer is true when the payload carried the field, even
	// empty.
	HasFinalAnswer bool
}

// TurnEndCheck reports whether a transcript holds the end of a turn. Each
// call reads only what was appended to the transcript since the previous
// call.
type TurnEndCheck func() (bool, error)

// TurnEndWatcher is implemented by agents that may call the turn-end hook
// before their transcript holds the whole turn (Claude Code writes the
// turn's last assistant line asynchronously). Agents that write the
// transcript before the hook runs do not implement it.
type TurnEndWatcher interface {
	// WatchTurnEnd returns a check for the transcript at path that looks
	// only at what follows from, the position where the turn started: a
	// line from before the turn never counts.
	WatchTurnEnd(path string, from Position, end TurnEnd) TurnEndCheck
}
