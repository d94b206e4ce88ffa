package renderrefs

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Marker is the prefix of every sentinel line. It carries the protocol
// version, so that a later format gets a new marker instead of being misparsed.
const Marker = "::entire-ref/v1::"

// EnvVar is the environment variable that switches emission on. Emission is
// enabled only when its value is exactly "1".
const EnvVar = "ENTIRE_RENDERABLE_REFS"

// Known values of Reference.Intent. Producers set the intent themselves; Emit
// does not default it.
const (
	IntentCreated    = "created"
	IntentReferenced = "referenced"
)

// Preview is a best-effort snapshot of the entity, used only as a loading
// placeholder. Consumers must not trust it: they fetch the entity by ID.
type Preview struct {
	Title  string `json:"title,omitempty"`
	Status string `json:"status,omitempty"`
}

// Reference is one renderable entity reference. Type and ID are the only
// load-bearing fields; a Reference lacking either is never emitted and never
// extracted.
//
// The JSON keys, in the order Emit writes them, are v, type, id, intent
// (omitted when empty), agent_id (omitted when empty) and preview (omitted
// when nil; a non-nil Preview with no fields is written as {}).
type Reference struct {
	// V is the payload version. Emit writes 1 when it is 0.
	V int `json:"v"`
	// Type names the kind of entity, for example "checkpoint" or "session".
	Type string `json:"type"`
	// ID identifies the entity within its Type.
	ID string `json:"id"`
	// Intent is IntentCreated or IntentReferenced; empty means unspecified.
	Intent string `json:"intent,omitempty"`
	// AgentID names the agent that owns the entity, for deep links.
	AgentID string `json:"agent_id,omitempty"`
	// Preview is an optional placeholder for the card.
	Preview *Preview `json:"preview,omitempty"`
}

// Enabled reports whether emission is switched on, that is whether
// getenv(EnvVar) is exactly "1" (not "true", not " 1"). A nil getenv means
// os.Getenv. It is safe for concurrent use if getenv is.
func Enabled(getenv func(string) string) bool {
	if getenv == nil {
		getenv = os.Getenv
	}
	return getenv(EnvVar) == "1"
}

// Emit writes the sentinel line for ref to w (typically a command's stderr)
// when emission is enabled in the process environment (Enabled(nil)), and
// otherwise does nothing and returns nil, so a human running the same command
// never sees the marker. Code that injects its environment calls
// Enabled(getenv) itself and then Write.
//
// Like Write, it is a no-op when ref has no Type or no ID. Errors come from
// encoding or from w; callers may ignore them, emission is best effort.
func Emit(w io.Writer, ref Reference) error {
	if !Enabled(nil) {
		return nil
	}
	return Write(w, ref)
}

// Write writes the sentinel line for ref to w without consulting the
// environment: Marker, the JSON encoding of ref (with V defaulted to 1 when it
// is 0), and a newline, in a single call to w.Write. It writes nothing and
// returns nil when ref.Type or ref.ID is empty, so callers may emit
// unconditionally with partial data. Strings are encoded by encoding/json, so
// a newline inside a field can never split the line.
func Write(w io.Writer, ref Reference) error {
	if ref.Type == "" || ref.ID == "" {
		return nil
	}
	if ref.V == 0 {
		ref.V = 1
	}
	payload, err := json.Marshal(ref)
	if err != nil {
		return fmt.Errorf("encode reference %s/%s: %w", ref.Type, ref.ID, err)
	}
	line := make([]byte, 0, len(Marker)+len(payload)+1)
	line = append(line, Marker...)
	line = append(line, payload...)
	line = append(line, '\n')
	if _, err := w.Write(line); err != nil {
		return fmt.Errorf("write reference %s/%s: %w", ref.Type, ref.ID, err)
	}
	return nil
}
