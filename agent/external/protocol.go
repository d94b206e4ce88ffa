package external

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
)

// Info is a program's answer to info.
type Info struct {
	ProtocolVersion int          `json:"protocol_version"`
	Name            string       `json:"name"`
	Type            string       `json:"type"`
	Description     string       `json:"description"`
	ProtectedDirs   []string     `json:"protected_dirs"`
	HookNames       []string     `json:"hook_names"`
	Capabilities    Capabilities `json:"capabilities"`
}

// Capabilities are the optional subcommand groups a program declares; a
// group that is false or missing is never called.
type Capabilities struct {
	Hooks                  bool `json:"hooks"`
	TranscriptAnalyzer     bool `json:"transcript_analyzer"`
	TranscriptPreparer     bool `json:"transcript_preparer"`
	TokenCalculator        bool `json:"token_calculator"`
	TextGenerator          bool `json:"text_generator"`
	HookResponseWriter     bool `json:"hook_response_writer"`
	SubagentAwareExtractor bool `json:"subagent_aware_extractor"`
}

// Limits of what an info answer may declare.
const (
	maxNameLen  = 64
	maxTypeLen  = 64
	maxDescLen  = 300
	maxHookVerb = 64
	maxListLen  = 64
)

// namePattern is what an agent name (and a hook name) may be: it becomes
// a command line word and a file name.
var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// check validates info as the answer of the program for name: version 1,
// its own name, printable labels, hook names and protected directories
// that are plain names.
func (in *Info) check(name string) error {
	switch {
	case in.ProtocolVersion != ProtocolVersion:
		return fmt.Errorf("protocol version %d, entire speaks %d", in.ProtocolVersion, ProtocolVersion)
	case in.Name != name:
		return fmt.Errorf("info names the agent %q, the program is entire-agent-%s", in.Name, name)
	case in.Type == "" || len(in.Type) > maxTypeLen || !printable(in.Type):
		return fmt.Errorf("type %q is not a short printable label", in.Type)
	case len(in.Description) > maxDescLen || !printable(in.Description):
		return errors.New("description is not a short printable text")
	case len(in.HookNames) > maxListLen || len(in.ProtectedDirs) > maxListLen:
		return errors.New("too many hook names or protected directories")
	case in.Capabilities.Hooks && len(in.HookNames) == 0:
		return errors.New("declares hooks but no hook_names")
	}
	for _, h := range in.HookNames {
		if len(h) > maxHookVerb || !namePattern.MatchString(h) {
			return fmt.Errorf("hook name %q is not a plain word", h)
		}
	}
	for _, d := range in.ProtectedDirs {
		if d == "" || d == "." || d == ".." || d == ".git" || d == ".entire" || strings.ContainsAny(d, "/\\\x00") || !printable(d) {
			return fmt.Errorf("protected directory %q is not a directory name", d)
		}
	}
	return nil
}

// printable reports whether s has no control characters.
func printable(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) })
}

// Event types of parse-hook's answer.
const (
	EventSessionStart  = 1
	EventTurnStart     = 2
	EventTurnEnd       = 3
	EventCompaction    = 4
	EventSessionEnd    = 5
	EventSubagentStart = 6
	EventSubagentEnd   = 7
)

// Event is parse-hook's answer.
type Event struct {
	Type              int             `json:"type"`
	SessionID         string          `json:"session_id"`
	PreviousSessionID string          `json:"previous_session_id,omitempty"`
	SessionRef        string          `json:"session_ref,omitempty"`
	Prompt            string          `json:"prompt,omitempty"`
	Model             string          `json:"model,omitempty"`
	Timestamp         string          `json:"timestamp,omitempty"`
	ToolUseID         string          `json:"tool_use_id,omitempty"`
	SubagentID        string          `json:"subagent_id,omitempty"`
	ToolInput         json.RawMessage `json:"tool_input,omitempty"`
	SubagentType      string          `json:"subagent_type,omitempty"`
	TaskDescription   string          `json:"task_description,omitempty"`
	ResponseMessage   string          `json:"response_message,omitempty"`
	Metadata          json.RawMessage `json:"metadata,omitempty"`
}

// hookType is the normalized hook type of an event type; false for a
// type the protocol does not define.
func hookType(t int) (agent.HookType, bool) {
	switch t {
	case EventSessionStart:
		return agent.HookSessionStart, true
	case EventTurnStart:
		return agent.HookUserPromptSubmit, true
	case EventTurnEnd, EventCompaction:
		// A compaction saves the work so far as a turn end does; the
		// transcript is stored whole, so its rewrite loses nothing.
		return agent.HookStop, true
	case EventSessionEnd:
		return agent.HookSessionEnd, true
	case EventSubagentStart:
		return agent.HookSubagentStart, true
	case EventSubagentEnd:
		return agent.HookSubagentStop, true
	}
	return "", false
}

// sessionObject is the protocol's AgentSession object.
type sessionObject struct {
	SessionID     string   `json:"session_id"`
	AgentName     string   `json:"agent_name"`
	RepoPath      string   `json:"repo_path"`
	SessionRef    string   `json:"session_ref"`
	StartTime     string   `json:"start_time"`
	NativeData    []byte   `json:"native_data"`
	ModifiedFiles []string `json:"modified_files"`
	NewFiles      []string `json:"new_files"`
	DeletedFiles  []string `json:"deleted_files"`
}

// hookInputObject is the protocol's HookInput object.
type hookInputObject struct {
	HookType   string          `json:"hook_type"`
	SessionID  string          `json:"session_id"`
	SessionRef string          `json:"session_ref,omitempty"`
	Timestamp  string          `json:"timestamp,omitempty"`
	UserPrompt string          `json:"user_prompt,omitempty"`
	ToolName   string          `json:"tool_name,omitempty"`
	ToolUseID  string          `json:"tool_use_id,omitempty"`
	ToolInput  json.RawMessage `json:"tool_input,omitempty"`
}

// CheckSessionRef applies the protocol's session_ref constraints: an
// absolute reference is a path with no "." or ".." component that, when
// sessionDir is not empty, lies inside sessionDir; any other reference is
// an agent-defined key that must not escape its own base once cleaned.
func CheckSessionRef(ref, sessionDir string) error {
	if ref == "" {
		return nil
	}
	if strings.ContainsRune(ref, 0) || len(ref) > 4096 {
		return errors.New("session_ref is not a reference")
	}
	if filepath.IsAbs(ref) {
		for _, part := range strings.Split(ref, "/") {
			if part == "." || part == ".." {
				return fmt.Errorf("session_ref %q has a %q component", ref, part)
			}
		}
		if sessionDir == "" {
			return nil
		}
		rel, err := filepath.Rel(filepath.Clean(sessionDir), ref)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
			return fmt.Errorf("session_ref %q is outside the agent's session directory %s", ref, sessionDir)
		}
		return nil
	}
	if c := filepath.Clean(ref); c == ".." || strings.HasPrefix(c, "../") {
		return fmt.Errorf("session_ref %q escapes its base", ref)
	}
	return nil
}

// decodeJSON decodes a program's JSON answer into v: exactly one JSON
// value, nothing after it.
func decodeJSON(label string, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %s: answer is not the JSON the protocol asks for: %v", ErrProtocol, label, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: %s: more than one JSON value in the answer", ErrProtocol, label)
	}
	return nil
}

// callJSON runs args with stdin and decodes the JSON answer into v.
func (r Runner) callJSON(ctx context.Context, v any, stdin []byte, args ...string) error {
	out, err := r.run(ctx, call{args: args, stdin: stdin, timeout: CallTimeout, limit: maxJSONAnswer})
	if err != nil {
		return err
	}
	return decodeJSON(r.label(args), out, v)
}

// Info runs info and validates the answer as the program for name.
func (r Runner) Info(ctx context.Context, name string) (*Info, error) {
	out, err := r.run(ctx, call{args: []string{"info"}, timeout: InfoTimeout, limit: 64 << 10})
	if err != nil {
		return nil, err
	}
	var in Info
	if err := decodeJSON(r.label([]string{"info"}), out, &in); err != nil {
		return nil, err
	}
	if err := in.check(name); err != nil {
		return nil, fmt.Errorf("%w: %s info: %v", ErrProtocol, r.label(nil), err)
	}
	return &in, nil
}

// chunks is the {"chunks": [...]} object of chunk-transcript and
// reassemble-transcript.
type chunks struct {
	Chunks [][]byte `json:"chunks"`
}

// Chunk runs chunk-transcript; every chunk must be at most maxSize bytes
// and the chunks must be at least one.
func (r Runner) Chunk(ctx context.Context, content []byte, maxSize int) ([][]byte, error) {
	args := []string{"chunk-transcript", "--max-size", strconv.Itoa(maxSize)}
	out, err := r.run(ctx, call{args: args, stdin: content, timeout: TranscriptTimeout,
		limit: int64(base64.StdEncoding.EncodedLen(MaxTranscript)) + 1<<20})
	if err != nil {
		return nil, err
	}
	var c chunks
	if err := decodeJSON(r.label(args), out, &c); err != nil {
		return nil, err
	}
	if len(c.Chunks) == 0 && len(content) > 0 {
		return nil, fmt.Errorf("%w: %s: no chunks", ErrProtocol, r.label(args))
	}
	if slices.ContainsFunc(c.Chunks, func(b []byte) bool { return len(b) > maxSize }) {
		return nil, fmt.Errorf("%w: %s: a chunk larger than %d bytes", ErrProtocol, r.label(args), maxSize)
	}
	return c.Chunks, nil
}

// Reassemble runs reassemble-transcript.
func (r Runner) Reassemble(ctx context.Context, parts [][]byte) ([]byte, error) {
	in, err := json.Marshal(chunks{Chunks: parts})
	if err != nil {
		return nil, err
	}
	return r.run(ctx, call{args: []string{"reassemble-transcript"}, stdin: in, timeout: TranscriptTimeout, limit: MaxTranscript})
}

// ReadTranscript runs read-transcript --session-ref ref, bounded by
// timeout.
func (r Runner) ReadTranscript(ctx context.Context, ref string, timeout time.Duration) ([]byte, error) {
	return r.run(ctx, call{args: []string{"read-transcript", "--session-ref", ref}, timeout: timeout, limit: MaxTranscript})
}
