package pi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/agent"
)

// agentDir returns Pi's agent directory: $PI_CODING_AGENT_DIR (a leading
// ~ is the home directory), else ~/.pi/agent.
func (a *Agent) agentDir() (string, error) {
	home, err := a.HomeDir()
	if v := a.EnvVar(EnvAgentDir); v != "" {
		if rest, ok := strings.CutPrefix(v, "~"); ok && err == nil {
			return filepath.Join(home, rest), nil
		}
		return v, nil
	}
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".pi", "agent"), nil
}

// projectDirName is the directory Pi keeps a project's sessions in: the
// project's path without its leading separator, every separator and ":"
// a "-", between "--" and "--".
func projectDirName(cwd string) string {
	s := strings.TrimLeft(filepath.Clean(cwd), `/\`)
	s = strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(s)
	return "--" + s + "--"
}

// GetSessionDir returns <agent dir>/sessions/--<repoPath>--, where Pi
// keeps the sessions started in repoPath; ENTIRE_TEST_PI_SESSION_DIR, when
// set, is returned as is.
func (a *Agent) GetSessionDir(repoPath string) (string, error) {
	if v := a.SessionDirOverride(); v != "" {
		return v, nil
	}
	d, err := a.agentDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "sessions", projectDirName(repoPath)), nil
}

// ReadSession reads the transcript at input.SessionRef; ModifiedFiles are
// the files its tool calls write (agent.ReadSessionFile).
func (a *Agent) ReadSession(input *agent.HookInput) (*agent.AgentSession, error) {
	return agent.ReadSessionFile(a, input)
}

// SessionFilePath returns where WriteSession writes session: its
// SessionRef when set, else <session dir>/<start>_<id>.jsonl, the start
// being the header's timestamp with ":" and "." as "-", which is where
// `pi --session <id>` finds it (Pi matches the header's id).
func (a *Agent) SessionFilePath(session *agent.AgentSession) (string, error) {
	if session.SessionRef != "" {
		return session.SessionRef, nil
	}
	id := session.SessionID
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return "", fmt.Errorf("pi session id %q cannot name a file", id)
	}
	dir, err := a.GetSessionDir(session.RepoPath)
	if err != nil {
		return "", err
	}
	start := ""
	if h, ok := readHeader(session.NativeData); ok {
		start = strings.NewReplacer(":", "-", ".", "-").Replace(h.Timestamp)
	}
	if start == "" || strings.ContainsAny(start, `/\`) {
		start = session.StartTime.UTC().Format("2006-01-02T15-04-05-000Z")
	}
	return filepath.Join(dir, start+"_"+id+".jsonl"), nil
}

// WriteSession writes session.NativeData to SessionFilePath atomically
// (mode 0600, parent directories 0750). Pi runs a resumed session in the
// directory its header names: a session restored into another clone gets
// that clone's path as its header's cwd.
func (a *Agent) WriteSession(session *agent.AgentSession) error {
	if session == nil {
		return errors.New("write pi session: nil session")
	}
	_, err := agent.WriteSessionFile(a, session, withCwd(session.NativeData, session.RepoPath))
	return err
}

// withCwd returns data with its header's cwd set to cwd (data itself when
// cwd is "" or already the header's, or the header cannot be read).
func withCwd(data []byte, cwd string) []byte {
	h, ok := readHeader(data)
	if !ok || cwd == "" || h.Cwd == cwd {
		return data
	}
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	var fields map[string]json.RawMessage
	if json.Unmarshal(first, &fields) != nil {
		return data
	}
	fields["cwd"], _ = json.Marshal(cwd)
	line, err := json.Marshal(fields)
	if err != nil {
		return data
	}
	out := append(line, '\n')
	return append(out, rest...)
}

// StorageDir returns Pi's agent directory, whose absence means Pi never
// ran on this machine; sessionDir itself under the test override.
func (a *Agent) StorageDir(sessionDir string) string {
	if a.SessionDirOverride() != "" {
		return sessionDir
	}
	if d, err := a.agentDir(); err == nil {
		return d
	}
	return sessionDir
}
