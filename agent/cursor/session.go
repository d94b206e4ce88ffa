package cursor

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/entirecli/entire/agent"
)

// home returns Cursor's data directory, ~/.cursor.
func (a *Agent) home() (string, error) {
	home, err := a.HomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".cursor"), nil
}

// nonAlnum is what Cursor turns into "-" in a project's directory name.
var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]`)

// projectDirName is the directory Cursor keeps a workspace's data in: its
// path without the leading "/", every character but letters and digits a
// "-" (as Cursor's CLI names it; Cursor does not document the rule).
func projectDirName(workspace string) string {
	return nonAlnum.ReplaceAllString(strings.TrimPrefix(filepath.Clean(workspace), "/"), "-")
}

// validID reports whether a conversation ID can name a file.
func validID(id string) bool {
	return id != "" && !strings.ContainsAny(id, `/\`) && !strings.HasPrefix(id, ".") && len(id) <= 128
}

// GetSessionDir returns ~/.cursor/projects/<workspace>/agent-transcripts;
// ENTIRE_TEST_CURSOR_PROJECT_DIR, when set, is returned as is.
func (a *Agent) GetSessionDir(repoPath string) (string, error) {
	if v := a.SessionDirOverride(); v != "" {
		return v, nil
	}
	h, err := a.home()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, "projects", projectDirName(repoPath), "agent-transcripts"), nil
}

// ReadSession reads the transcript at input.SessionRef (agent.ReadSessionFile).
func (a *Agent) ReadSession(input *agent.HookInput) (*agent.AgentSession, error) {
	return agent.ReadSessionFile(a, input)
}

// SessionFilePath returns where WriteSession writes session: its
// SessionRef when set, else <session dir>/<id>.jsonl, the CLI's layout.
func (a *Agent) SessionFilePath(session *agent.AgentSession) (string, error) {
	if session.SessionRef != "" {
		return session.SessionRef, nil
	}
	if !validID(session.SessionID) {
		return "", fmt.Errorf("cursor conversation id %q cannot name a file", session.SessionID)
	}
	dir, err := a.GetSessionDir(session.RepoPath)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, session.SessionID+".jsonl"), nil
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

// StorageDir returns ~/.cursor, whose absence means Cursor never ran on
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
