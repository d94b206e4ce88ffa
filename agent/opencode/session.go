package opencode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
)

// sessionIDRe is OpenCode's session ID: "ses_" and letters and digits.
var sessionIDRe = regexp.MustCompile(`^ses_[A-Za-z0-9]{1,64}$`)

// dataHome returns $XDG_DATA_HOME, else ~/.local/share.
func (a *Agent) dataHome() (string, error) {
	if v := a.EnvVar(EnvDataHome); v != "" && filepath.IsAbs(v) {
		return v, nil
	}
	home, err := a.HomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share"), nil
}

// GetSessionDir returns <data home>/opencode/entire, where entire keeps
// its copies of OpenCode's sessions (OpenCode's own are in its database
// beside it);
// ENTIRE_TEST_OPENCODE_SESSION_DIR, when set, is returned as is.
func (a *Agent) GetSessionDir(string) (string, error) {
	if v := a.SessionDirOverride(); v != "" {
		return v, nil
	}
	d, err := a.dataHome()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "opencode", "entire"), nil
}

// TranscriptPath returns entire's copy of session sessionID:
// <session dir>/<id>.jsonl. An ID that is not OpenCode's is an error.
func (a *Agent) TranscriptPath(sessionID string) (string, error) {
	if !sessionIDRe.MatchString(sessionID) {
		return "", fmt.Errorf("opencode session id %q is not ses_ and letters and digits", sessionID)
	}
	dir, err := a.GetSessionDir("")
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, sessionID+".jsonl"), nil
}

// ReadSession reads the transcript at input.SessionRef; ModifiedFiles are
// the files its tool calls write (agent.ReadSessionFile).
func (a *Agent) ReadSession(input *agent.HookInput) (*agent.AgentSession, error) {
	return agent.ReadSessionFile(a, input)
}

// SessionFilePath returns where WriteSession writes the copy: its
// SessionRef when set, else TranscriptPath.
func (a *Agent) SessionFilePath(session *agent.AgentSession) (string, error) {
	if session.SessionRef != "" {
		return session.SessionRef, nil
	}
	return a.TranscriptPath(session.SessionID)
}

// importTimeout bounds each opencode command WriteSession runs.
const importTimeout = 60 * time.Second

// WriteSession writes the copy of session to SessionFilePath (mode 0600)
// and hands the session to OpenCode: `opencode session delete <id>` when
// the copy replaces one (a rewound session replaces the one OpenCode
// holds) and `opencode import` of the export document, run in the
// repository so that OpenCode files the session under it, after seeding
// the repository's .opencode with OpenCode's plugin package where it
// lacks it. Under the test override of the session
// directory only the copy is written. An import that fails is an error
// that says where the copy is.
func (a *Agent) WriteSession(session *agent.AgentSession) error {
	if session == nil {
		return errors.New("write opencode session: nil session")
	}
	path, err := a.SessionFilePath(session)
	if err != nil {
		return fmt.Errorf("write opencode session: %w", err)
	}
	_, statErr := os.Stat(path)
	replaces := statErr == nil
	if _, err := agent.WriteSessionFile(a, session, session.NativeData); err != nil {
		return err
	}
	if a.SessionDirOverride() != "" {
		return nil
	}
	// A clone's .opencode has the committed plugin but not OpenCode's
	// plugin package: OpenCode would install it first (see seedDeps).
	if session.RepoPath != "" {
		if _, err := a.seedDeps(session.RepoPath, nil); err != nil {
			return fmt.Errorf("write opencode session: %w", err)
		}
	}
	if err := a.importSession(session, path, replaces); err != nil {
		return fmt.Errorf("the transcript is in %s, but OpenCode could not take it: %w", path, err)
	}
	return nil
}

// importSession runs `opencode import` on the export document of the copy
// at path, in the session's repository; when the copy replaced an earlier
// one (a rewind, an undo), OpenCode's session is deleted first, since an
// import only adds messages.
func (a *Agent) importSession(session *agent.AgentSession, path string, replaces bool) error {
	doc, err := exportDocument(session.NativeData)
	if err != nil {
		return err
	}
	bin := a.EnvVar(EnvBinary)
	if bin == "" {
		bin = "opencode"
	}
	if _, err := exec.LookPath(bin); err != nil {
		return fmt.Errorf("%s is not on PATH (run `opencode import %s` where it is)", bin, path)
	}
	tmp, err := os.CreateTemp("", "entire-opencode-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(doc); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	run := func(args ...string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), importTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = session.RepoPath
		cmd.Stdin = nil
		return cmd.CombinedOutput()
	}
	if replaces {
		_, _ = run("session", "delete", session.SessionID) // OpenCode may not have it
	}
	if out, err := run("import", tmp.Name()); err != nil {
		return fmt.Errorf("opencode import: %w: %s", err, lastLine(out))
	}
	return nil
}

// lastLine returns the last non-empty line of out, at most 200 bytes.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	s := strings.TrimSpace(lines[len(lines)-1])
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// StorageDir returns OpenCode's data directory (<data home>/opencode),
// whose absence means OpenCode never ran on this machine; sessionDir
// itself under the test override.
func (a *Agent) StorageDir(sessionDir string) string {
	if a.SessionDirOverride() != "" {
		return sessionDir
	}
	if d, err := a.dataHome(); err == nil {
		return filepath.Join(d, "opencode")
	}
	return sessionDir
}
