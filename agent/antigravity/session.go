package antigravity

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/agent"
)

// dataDir returns agy's data directory, ~/.gemini/antigravity-cli.
func (a *Agent) dataDir() (string, error) {
	home, err := a.HomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".gemini", "antigravity-cli"), nil
}

// GetSessionDir returns ~/.gemini/antigravity-cli/brain, where agy keeps a
// directory per conversation (the same for every repository);
// ENTIRE_TEST_ANTIGRAVITY_BRAIN_DIR, when set, is returned as is.
func (a *Agent) GetSessionDir(string) (string, error) {
	if v := a.SessionDirOverride(); v != "" {
		return v, nil
	}
	d, err := a.dataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "brain"), nil
}

// ReadSession reads the transcript at input.SessionRef (agent.ReadSessionFile).
func (a *Agent) ReadSession(input *agent.HookInput) (*agent.AgentSession, error) {
	return agent.ReadSessionFile(a, input)
}

// SessionFilePath returns where WriteSession writes session: its
// SessionRef when set, else the conversation's
// <brain>/<id>/.system_generated/logs/transcript_full.jsonl.
func (a *Agent) SessionFilePath(session *agent.AgentSession) (string, error) {
	if session.SessionRef != "" {
		return session.SessionRef, nil
	}
	id := session.SessionID
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return "", fmt.Errorf("antigravity conversation id %q cannot name a file", id)
	}
	dir, err := a.GetSessionDir(session.RepoPath)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, id, ".system_generated", "logs", "transcript_full.jsonl"), nil
}

// WriteSession writes session.NativeData to SessionFilePath atomically
// (agent.WriteSessionFile).
func (a *Agent) WriteSession(session *agent.AgentSession) error {
	if session == nil {
		return errors.New("write session: nil session")
	}
	_, err := agent.WriteSessionFile(a, session, session.NativeData)
	return err
}

// StorageDir returns ~/.gemini/antigravity-cli, whose absence means agy
// never ran on this machine; sessionDir itself under the test override.
func (a *Agent) StorageDir(sessionDir string) string {
	if a.SessionDirOverride() != "" {
		return sessionDir
	}
	if d, err := a.dataDir(); err == nil {
		return d
	}
	return sessionDir
}
