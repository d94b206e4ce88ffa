package agent

import (
	"errors"
	"fmt"

	"github.com/entirecli/entire/internal/atomicfile"
)

// ReadSessionFile is ReadSession for an agent whose session is the
// transcript file a hook input names (SessionRef): the file's bytes, and
// as ModifiedFiles the files its records' tool calls write (Records), in
// first-seen order.
func ReadSessionFile(a Agent, input *HookInput) (*AgentSession, error) {
	if input == nil || input.SessionRef == "" {
		return nil, fmt.Errorf("read %s session: no transcript path", a.Name())
	}
	data, err := ReadTranscriptFile(input.SessionRef)
	if err != nil {
		return nil, fmt.Errorf("read %s session: %w", a.Name(), err)
	}
	s := &AgentSession{SessionID: input.SessionID, AgentName: a.Name(), SessionRef: input.SessionRef, StartTime: input.Timestamp, NativeData: data}
	_, _ = Records(a, data, func(_ int, rec Record) {
		for _, e := range rec.Entries {
			for _, p := range e.Files {
				s.ModifiedFiles = AppendUnique(s.ModifiedFiles, p)
			}
		}
	})
	return s, nil
}

// sessionPather is the part of a SessionStore WriteSessionFile needs.
type sessionPather interface {
	Name() AgentName
	SessionFilePath(session *AgentSession) (string, error)
}

// WriteSessionFile is WriteSession for an agent whose session is one
// file: data (session.NativeData, or what the agent makes of it) written
// to a's SessionFilePath atomically, mode 0600, parent directories 0750,
// replacing any file there. It returns the path.
func WriteSessionFile(a sessionPather, session *AgentSession, data []byte) (string, error) {
	if session == nil {
		return "", fmt.Errorf("write %s session: %w", a.Name(), errors.New("nil session"))
	}
	path, err := a.SessionFilePath(session)
	if err != nil {
		return "", fmt.Errorf("write %s session: %w", a.Name(), err)
	}
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return "", fmt.Errorf("write %s session: %w", a.Name(), err)
	}
	return path, nil
}
