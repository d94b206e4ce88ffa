package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
)

// home returns Codex's data directory: $CODEX_HOME, else ~/.codex.
func (a *Agent) home() (string, error) {
	if h := a.EnvVar(EnvHome); h != "" {
		return h, nil
	}
	home, err := a.HomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".codex"), nil
}

// GetSessionDir returns <codex home>/sessions, where Codex keeps the
// rollouts of every project (in YYYY/MM/DD directories);
// ENTIRE_TEST_CODEX_SESSION_DIR, when set, is returned as is.
func (a *Agent) GetSessionDir(string) (string, error) {
	if v := a.SessionDirOverride(); v != "" {
		return v, nil
	}
	h, err := a.home()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, "sessions"), nil
}

// ReadSession reads the transcript at input.SessionRef; ModifiedFiles are
// the files its tool calls write (agent.ReadSessionFile).
func (a *Agent) ReadSession(input *agent.HookInput) (*agent.AgentSession, error) {
	return agent.ReadSessionFile(a, input)
}

// SessionFilePath returns where WriteSession writes session: its
// SessionRef when set, else where Codex looks for the rollout of a
// session it resumes: <sessions>/YYYY/MM/DD/rollout-<start>-<id>.jsonl,
// the start being the session_meta timestamp (UTC). Under the test
// override the file lies in the override directory itself.
func (a *Agent) SessionFilePath(session *agent.AgentSession) (string, error) {
	if session.SessionRef != "" {
		return session.SessionRef, nil
	}
	id := session.SessionID
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return "", fmt.Errorf("codex session id %q cannot name a file", id)
	}
	dir, err := a.GetSessionDir(session.RepoPath)
	if err != nil {
		return "", err
	}
	start := startTime(session.NativeData)
	if start.IsZero() {
		start = session.StartTime.UTC()
	}
	name := "rollout-" + start.Format("2006-01-02T15-04-05") + "-" + id + ".jsonl"
	if a.SessionDirOverride() != "" {
		return filepath.Join(dir, name), nil
	}
	return filepath.Join(dir, start.Format("2006"), start.Format("01"), start.Format("02"), name), nil
}

// startTime returns the timestamp of a rollout's session_meta line.
func startTime(data []byte) time.Time {
	first, _, _ := strings.Cut(string(data), "\n")
	var l struct {
		Type    string `json:"type"`
		Payload struct {
			Timestamp string `json:"timestamp"`
		} `json:"payload"`
	}
	if json.Unmarshal([]byte(first), &l) != nil || l.Type != "session_meta" {
		return time.Time{}
	}
	return agent.ParseTime(l.Payload.Timestamp).UTC()
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

// StorageDir returns Codex's data directory ($CODEX_HOME, else ~/.codex),
// whose absence means Codex never ran on this machine; sessionDir itself
// under the test override.
func (a *Agent) StorageDir(sessionDir string) string {
	if a.SessionDirOverride() != "" {
		return sessionDir
	}
	if h, err := a.home(); err == nil {
		return h
	}
	return sessionDir
}
