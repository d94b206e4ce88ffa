package copilotcli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/agent"
)

// home returns Copilot's data directory: $COPILOT_HOME, else ~/.copilot.
func (a *Agent) home() (string, error) {
	if h := a.EnvVar(EnvHome); h != "" {
		return h, nil
	}
	home, err := a.HomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".copilot"), nil
}

// validID refuses a session ID that cannot name a directory.
func validID(id string) error {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return fmt.Errorf("copilot session id %q cannot name a directory", id)
	}
	return nil
}

// GetSessionDir returns <copilot home>/session-state, which holds a
// directory per session; ENTIRE_TEST_COPILOT_SESSION_DIR, when set, is
// returned as is.
func (a *Agent) GetSessionDir(string) (string, error) {
	if v := a.SessionDirOverride(); v != "" {
		return v, nil
	}
	h, err := a.home()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, "session-state"), nil
}

// ReadSession reads the transcript at input.SessionRef; ModifiedFiles are
// the files its tool calls write (agent.ReadSessionFile).
func (a *Agent) ReadSession(input *agent.HookInput) (*agent.AgentSession, error) {
	return agent.ReadSessionFile(a, input)
}

// SessionFilePath returns where WriteSession writes session: its
// SessionRef when set, else <session dir>/<id>/events.jsonl, where
// `copilot --resume <id>` finds it; under the test override,
// <override>/<id>.jsonl.
func (a *Agent) SessionFilePath(session *agent.AgentSession) (string, error) {
	if session.SessionRef != "" {
		return session.SessionRef, nil
	}
	if err := validID(session.SessionID); err != nil {
		return "", err
	}
	dir, err := a.GetSessionDir(session.RepoPath)
	if err != nil {
		return "", err
	}
	if a.SessionDirOverride() != "" {
		return filepath.Join(dir, session.SessionID+".jsonl"), nil
	}
	return filepath.Join(dir, session.SessionID, eventsFile), nil
}

// WriteSession writes session.NativeData to SessionFilePath atomically
// (agent.WriteSessionFile: mode 0600, parent directories 0750).
func (a *Agent) WriteSession(session *agent.AgentSession) error {
	if session == nil {
		return errors.New("write session: nil session")
	}
	_, err := agent.WriteSessionFile(a, session, session.NativeData)
	return err
}

// StorageDir returns Copilot's data directory, whose absence means Copilot
// never ran on this machine; sessionDir itself under the test override.
func (a *Agent) StorageDir(sessionDir string) string {
	if a.SessionDirOverride() != "" {
		return sessionDir
	}
	if h, err := a.home(); err == nil {
		return h
	}
	return sessionDir
}
