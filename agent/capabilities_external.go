package agent

import "io"

// HookEventParser is implemented by agents whose program tells the kind of
// each hook call from its payload (Entire's external agents, whose
// parse-hook answers with the event): the hook hands it the verb and the
// raw payload instead of asking a HookVerbResolver first.
type HookEventParser interface {
	// ParseHookEvent parses the payload of the hook verb from r into a
	// HookInput whose HookType is the event's kind; nil (and no error)
	// for a call that is no event to act on. Problems that do not stop
	// the hook (a transcript that could not be read) go to warn.
	ParseHookEvent(verb string, r io.Reader, warn func(msg string, err error)) (*HookInput, error)
}

// HookAnswerWriter is implemented by agents that print a hook's answer in
// a format of their own instead of the JSON object the hook returns.
type HookAnswerWriter interface {
	// WriteHookAnswer returns the bytes to print for the answer out (nil
	// when the handler had nothing to say) of a successful hook of type
	// t; nil prints nothing.
	WriteHookAnswer(t HookType, out map[string]any) []byte
}

// TokenReporter is implemented by agents that may not be able to count
// tokens: a checkpoint of an agent that cannot records no token usage
// (explain says "not recorded"), never zeros.
type TokenReporter interface {
	// ReportsTokens reports whether the agent's scans count tokens.
	ReportsTokens() bool
}

// ReportsTokens reports whether a counts tokens: true unless a is a
// TokenReporter that says otherwise.
func ReportsTokens(a Agent) bool {
	r, ok := a.(TokenReporter)
	return !ok || r.ReportsTokens()
}

// CopiedTranscript is implemented by agents whose transcript Entire reads
// from a copy it keeps, not from the agent's own file: after a rewind
// rewrites the copy, the agent is handed its content.
type CopiedTranscript interface {
	// TranscriptCopyWritten hands the agent the copy at path of the
	// session's transcript.
	TranscriptCopyWritten(sessionID, path string) error
}
