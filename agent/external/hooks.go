package external

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/atomicfile"
)

// maxPayload bounds a hook payload handed to parse-hook.
const maxPayload = 64 << 20

// ParseHookEvent hands the raw payload of the hook verb to parse-hook and
// returns the event as a HookInput whose HookType is the event's; nil for
// a payload the program says is not relevant (null). The session's
// transcript is copied through read-transcript (see refresh) and the
// input's SessionRef names the copy; a transcript that cannot be read is
// reported to warn and the hook goes on without it (the step still
// records the work tree). Empty input gives agent.ErrEmptyInput; a
// program that fails or answers what the protocol does not allow gives an
// error wrapping ErrProtocol.
func (a *Agent) ParseHookEvent(verb string, r io.Reader, warn func(msg string, err error)) (*agent.HookInput, error) {
	if !a.info.Capabilities.Hooks {
		return nil, fmt.Errorf("%w: %s declares no hooks", ErrProtocol, a.info.Name)
	}
	payload, tooLarge, err := agent.ReadAtMost(r, maxPayload)
	if err != nil {
		return nil, fmt.Errorf("read hook input: %w", err)
	}
	if tooLarge {
		return nil, fmt.Errorf("read hook input: more than %d bytes: %w", maxPayload, agent.ErrMalformedInput)
	}
	if len(strings.TrimSpace(string(payload))) == 0 {
		return nil, agent.ErrEmptyInput
	}
	args := []string{"parse-hook", "--hook", verb}
	out, err := a.run.run(context.Background(), call{args: args, stdin: payload, timeout: CallTimeout, limit: maxJSONAnswer})
	if err != nil {
		return nil, err
	}
	if jsonNull(out) {
		return nil, nil
	}
	var ev Event
	if err := decodeJSON(a.run.label(args), out, &ev); err != nil {
		return nil, err
	}
	in, err := a.eventInput(verb, &ev)
	if err != nil {
		return nil, fmt.Errorf("%w: %s parse-hook: %v", ErrProtocol, a.info.Name, err)
	}
	var raw map[string]any
	if json.Unmarshal(payload, &raw) == nil {
		in.RawData = raw
	}
	if ev.SessionRef != "" {
		in.SessionRef = a.refresh(in.SessionID, ev.SessionRef, in.HookType, warn)
	} else if p := a.copyPath(in.SessionID); p != "" && fileExists(p) {
		in.SessionRef = p
	}
	return in, nil
}

// sessionIDPattern is what a session ID may be: it names files.
var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`)

// eventInput validates an event and converts it.
func (a *Agent) eventInput(verb string, ev *Event) (*agent.HookInput, error) {
	ht, ok := hookType(ev.Type)
	if !ok {
		return nil, fmt.Errorf("event type %d is not one of 1-7", ev.Type)
	}
	if ev.SessionID == "" {
		return nil, fmt.Errorf("event without session_id")
	}
	if !sessionIDPattern.MatchString(ev.SessionID) || strings.Contains(ev.SessionID, "..") {
		return nil, fmt.Errorf("session_id %q cannot name a session", ev.SessionID)
	}
	in := &agent.HookInput{
		HookType:     ht,
		SessionID:    ev.SessionID,
		EventName:    verb,
		UserPrompt:   ev.Prompt,
		ToolUseID:    ev.ToolUseID,
		ToolInput:    []byte(ev.ToolInput),
		AgentID:      ev.SubagentID,
		SubagentType: ev.SubagentType,
		Timestamp:    agent.ParseTime(ev.Timestamp),
	}
	if len(in.ToolInput) == 0 || string(in.ToolInput) == "null" {
		in.ToolInput = nil
	}
	if ht == agent.HookSessionStart && ev.PreviousSessionID != "" {
		in.Source = "resume"
	}
	return in, nil
}

// copyPath returns the file of a session's transcript copy; "" when the
// agent keeps no copies.
func (a *Agent) copyPath(sessionID string) string {
	if a.copyDir == "" {
		return ""
	}
	return filepath.Join(a.copyDir, sessionID+".transcript")
}

// refPath returns the file that records the reference a session's copy
// was read from.
func (a *Agent) refPath(sessionID string) string {
	return filepath.Join(a.copyDir, sessionID+".ref")
}

// refresh checks ref against the protocol's constraints and, for the
// events that end work (or when there is no copy yet), copies the
// transcript through read-transcript. It returns the copy's path, or ""
// when there is none; problems go to warn.
func (a *Agent) refresh(sessionID, ref string, ht agent.HookType, warn func(string, error)) string {
	path := a.copyPath(sessionID)
	if path == "" {
		return ""
	}
	report := func(msg string, err error) {
		if warn != nil {
			warn(msg, err)
		}
	}
	dir, err := a.repoSessionDir()
	if err != nil {
		report("external agent: session directory unknown; transcript not read", err)
		return existing(path)
	}
	if err := CheckSessionRef(ref, dir); err != nil {
		report("external agent: session_ref refused; transcript not read", fmt.Errorf("%w: %v", ErrProtocol, err))
		return existing(path)
	}
	if ht == agent.HookSessionStart {
		a.pruneCopies(time.Now())
	}
	have := fileExists(path)
	switch ht {
	case agent.HookUserPromptSubmit, agent.HookSubagentStart:
		if have {
			// A turn's start needs where the transcript was; the copy
			// of the last turn end says it, without another read.
			return path
		}
	}
	data, err := a.run.ReadTranscript(context.Background(), ref, HookTranscriptTimeout)
	if err != nil {
		report("external agent: transcript not read", err)
		return existing(path)
	}
	if err := os.MkdirAll(a.copyDir, 0o700); err != nil {
		report("external agent: transcript copy", err)
		return existing(path)
	}
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		report("external agent: transcript copy", err)
		return existing(path)
	}
	if err := atomicfile.Write(a.refPath(sessionID), []byte(ref), 0o600); err != nil {
		report("external agent: transcript reference", err)
	}
	return path
}

// originalRef returns the reference the copy at path was read from;
// path itself when it is no copy of this agent.
func (a *Agent) originalRef(path string) string {
	if a.copyDir == "" || filepath.Dir(path) != a.copyDir || !strings.HasSuffix(path, ".transcript") {
		return path
	}
	b, err := os.ReadFile(strings.TrimSuffix(path, ".transcript") + ".ref")
	if err != nil || len(b) == 0 {
		return path
	}
	return string(b)
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// existing returns path when the file exists, else "".
func existing(path string) string {
	if fileExists(path) {
		return path
	}
	return ""
}

// copyMaxAge is how long a transcript copy nothing has refreshed is kept.
// A session's steps store its transcript, so a commit of a session idle
// that long still condenses what it did.
const copyMaxAge = 30 * 24 * time.Hour

// pruneCopies removes the copies (and their references) that no hook has
// refreshed for copyMaxAge; a session start does it, at the cost of one
// read of the copies' directory.
func (a *Agent) pruneCopies(now time.Time) {
	entries, err := os.ReadDir(a.copyDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".transcript") && !strings.HasSuffix(name, ".ref") {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > copyMaxAge {
			_ = os.Remove(filepath.Join(a.copyDir, name))
		}
	}
}
