package droid

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/agent"
)

// home returns droid's data directory, ~/.factory.
func (a *Agent) home() (string, error) {
	home, err := a.HomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".factory"), nil
}

// projectDirName is the directory droid keeps a project's sessions in:
// the project's absolute path with every "/" a "-".
func projectDirName(repoPath string) string {
	return strings.ReplaceAll(filepath.Clean(repoPath), string(filepath.Separator), "-")
}

// GetSessionDir returns ~/.factory/sessions/<repoPath with / as ->, where
// droid keeps the sessions started in repoPath;
// ENTIRE_TEST_DROID_SESSION_DIR, when set, is returned as is.
func (a *Agent) GetSessionDir(repoPath string) (string, error) {
	if v := a.SessionDirOverride(); v != "" {
		return v, nil
	}
	h, err := a.home()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, "sessions", projectDirName(repoPath)), nil
}

// ReadSession reads the transcript at input.SessionRef; ModifiedFiles are
// the files its tool calls write (agent.ReadSessionFile).
func (a *Agent) ReadSession(input *agent.HookInput) (*agent.AgentSession, error) {
	return agent.ReadSessionFile(a, input)
}

// SessionFilePath returns where WriteSession writes session: its
// SessionRef when set, else <session dir>/<id>.jsonl, where droid looks
// for a session it resumes.
func (a *Agent) SessionFilePath(session *agent.AgentSession) (string, error) {
	if session.SessionRef != "" {
		return session.SessionRef, nil
	}
	id := session.SessionID
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return "", fmt.Errorf("droid session id %q cannot name a file", id)
	}
	dir, err := a.GetSessionDir(session.RepoPath)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, id+".jsonl"), nil
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

// StorageDir returns ~/.factory, whose absence means droid never ran on
// this machine; sessionDir itself under the test override.
func (a *Agent) StorageDir(sessionDir string) string {
	if a.SessionDirOverride() != "" {
		return sessionDir
	}
	if h, err := a.home(); err == nil {
		return h
	}
	return sessionDir
}
