package geminicli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/agent"
)

// ProjectHash returns Gemini CLI's project id for an absolute project root:
// the hex SHA-256 of the path (FORMATS.md 2; Gemini CLI before 0.29. Newer
// versions use a slug registered in ~/.gemini/projects.json, not handled).
func ProjectHash(absRoot string) string {
	sum := sha256.Sum256([]byte(absRoot))
	return hex.EncodeToString(sum[:])
}

// GetSessionDir returns ~/.gemini/tmp/<sha256(absolute repoPath)>/chats
// ($GEMINI_CLI_HOME replaces the home directory). ENTIRE_TEST_GEMINI_PROJECT_DIR,
// when set, is returned as is.
func (a *Agent) GetSessionDir(repoPath string) (string, error) {
	if v := a.getenv(EnvTestProjectDir); v != "" {
		return v, nil
	}
	abs, err := filepath.Abs(repoPath)
	if err != nil {
		return "", fmt.Errorf("gemini session dir: %w", err)
	}
	home := a.getenv(EnvCLIHome)
	if home == "" {
		if home, err = a.home(); err != nil {
			return "", err
		}
	}
	return filepath.Join(home, ".gemini", "tmp", ProjectHash(abs), "chats"), nil
}

// ReadSession reads the transcript at input.SessionRef (either container).
// ModifiedFiles is filled from its file-writing tool calls.
func (a *Agent) ReadSession(input *agent.HookInput) (*agent.AgentSession, error) {
	if input == nil || input.SessionRef == "" {
		return nil, errors.New("read gemini session: no transcript path")
	}
	data, err := os.ReadFile(input.SessionRef)
	if err != nil {
		return nil, fmt.Errorf("read gemini session: %w", err)
	}
	s := &agent.AgentSession{
		SessionID:  input.SessionID,
		AgentName:  a.Name(),
		SessionRef: input.SessionRef,
		StartTime:  input.Timestamp,
		NativeData: data,
	}
	if an, err := AnalyzeTranscript(data); err == nil {
		s.ModifiedFiles = an.ModifiedFiles
	}
	return s, nil
}

// SessionFilePath returns where WriteSession writes session: its SessionRef
// when set; else, in the session dir of RepoPath, the newest existing
// session-*-<first 8 chars of id>.json or .jsonl file, else <id>.json
// (<id>.jsonl for JSONL content).
func (a *Agent) SessionFilePath(session *agent.AgentSession) (string, error) {
	if session.SessionRef != "" {
		return session.SessionRef, nil
	}
	id := session.SessionID
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\*?[`) {
		return "", fmt.Errorf("invalid session id %q", id)
	}
	dir, err := a.GetSessionDir(session.RepoPath)
	if err != nil {
		return "", err
	}
	short := id
	if len(short) > 8 {
		short = short[:8]
	}
	var newest string
	var newestTime int64
	for _, ext := range []string{".json", ".jsonl"} {
		matches, _ := filepath.Glob(filepath.Join(dir, "session-*-"+short+ext))
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && (newest == "" || st.ModTime().UnixNano() > newestTime) {
				newest, newestTime = m, st.ModTime().UnixNano()
			}
		}
	}
	if newest != "" {
		return newest, nil
	}
	ext := ".json"
	if DetectFormat(session.NativeData) == FormatJSONL {
		ext = ".jsonl"
	}
	return filepath.Join(dir, id+ext), nil
}

// WriteSession writes session.NativeData to SessionFilePath atomically (mode
// 0600, parent directories 0750), replacing any existing file.
func (a *Agent) WriteSession(session *agent.AgentSession) error {
	if session == nil {
		return errors.New("write gemini session: nil session")
	}
	path, err := a.SessionFilePath(session)
	if err != nil {
		return fmt.Errorf("write gemini session: %w", err)
	}
	if err := agent.WriteFileAtomic(path, session.NativeData, 0o600); err != nil {
		return fmt.Errorf("write gemini session: %w", err)
	}
	return nil
}
