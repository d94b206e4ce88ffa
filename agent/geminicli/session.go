package geminicli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
)

// ProjectHash returns Gemini CLI's project id for an absolute project root:
// the hex SHA-256 of the path (FORMATS.md 2; Gemini CLI before 0.29. Newer
// versions use a slug registered in ~/.gemini/projects.json, not handled).
func ProjectHash(absRoot string) string {
	sum := sha256.Sum256([]byte(absRoot))
	return hex.EncodeToString(sum[:])
}

// GetSessionDir returns the chats folder Gemini CLI uses for the project
// at repoPath ($GEMINI_CLI_HOME replaces the home directory):
// ~/.gemini/tmp/<slug>/chats, where slug is the project's entry in
// ~/.gemini/projects.json (Gemini CLI 0.29 and later) when its
// .project_root marker, if any, names the project; else a tmp/<slug> whose
// marker names it; else the older tmp/<sha256(absolute repoPath)>, which
// Gemini CLI moves into the slug folder it makes for a new project on its
// first start there. ENTIRE_TEST_GEMINI_PROJECT_DIR, when set, is returned
// as is.
func (a *Agent) GetSessionDir(repoPath string) (string, error) {
	if v := a.EnvVar(EnvTestProjectDir); v != "" {
		return v, nil
	}
	abs, err := filepath.Abs(repoPath)
	if err != nil {
		return "", fmt.Errorf("gemini session dir: %w", err)
	}
	home := a.EnvVar(EnvCLIHome)
	if home == "" {
		if home, err = a.HomeDir(); err != nil {
			return "", err
		}
	}
	tmp := filepath.Join(home, ".gemini", "tmp")
	if slug := projectSlug(filepath.Join(home, ".gemini"), abs); slug != "" {
		return filepath.Join(tmp, slug, "chats"), nil
	}
	return filepath.Join(tmp, ProjectHash(abs), "chats"), nil
}

// maxRegistry bounds how much of projects.json is read.
const maxRegistry = 4 << 20

// projectSlug returns the folder name Gemini CLI gives the project at root
// under its tmp folder, "" when it has none yet.
func projectSlug(geminiDir, root string) string {
	tmp := filepath.Join(geminiDir, "tmp")
	owns := func(slug string) (owned, marked bool) {
		b, err := os.ReadFile(filepath.Join(tmp, slug, ".project_root"))
		if err != nil {
			return true, false // no marker: nothing says otherwise
		}
		return filepath.Clean(strings.TrimSpace(string(b))) == root, true
	}
	if f, err := os.Open(filepath.Join(geminiDir, "projects.json")); err == nil {
		var reg struct {
			Projects map[string]string `json:"projects"`
		}
		err := json.NewDecoder(io.LimitReader(f, maxRegistry)).Decode(&reg)
		f.Close()
		if slug := reg.Projects[root]; err == nil && validSlug(slug) {
			if owned, _ := owns(slug); owned {
				return slug
			}
		}
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if !e.IsDir() || !validSlug(e.Name()) {
			continue
		}
		if owned, marked := owns(e.Name()); owned && marked {
			return e.Name()
		}
	}
	return ""
}

// validSlug reports whether s can name a folder under tmp.
func validSlug(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`)
}

// ReadSession reads the transcript at input.SessionRef (either container).
// ModifiedFiles is filled from its file-writing tool calls.
func (a *Agent) ReadSession(input *agent.HookInput) (*agent.AgentSession, error) {
	if input == nil || input.SessionRef == "" {
		return nil, errors.New("read gemini session: no transcript path")
	}
	data, err := agent.ReadTranscriptFile(input.SessionRef)
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
// session-*-<first 8 chars of id>.json or .jsonl file, else
// session-<start minute>-<first 8 chars of id>.json (.jsonl for JSONL
// content), named as Gemini CLI names it (SPEC 4.6's <id>.json is a file it
// never lists).
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
	// Gemini CLI lists only session-<minute>-<id8> files.
	return filepath.Join(dir, "session-"+sessionStart(session.NativeData).UTC().Format("2006-01-02T15-04")+"-"+short+ext), nil
}

// sessionStart returns a transcript's startTime (its header, or the
// document's member), the Unix epoch when it has none.
func sessionStart(content []byte) time.Time {
	first := content
	if DetectFormat(content) == FormatJSONL {
		if i := bytes.IndexByte(content, '\n'); i >= 0 {
			first = content[:i]
		}
	}
	var h struct {
		StartTime time.Time `json:"startTime"`
	}
	if obj, err := agent.ParseObject(bytes.TrimSpace(first)); err == nil {
		if raw, ok := obj.Get("startTime"); ok && json.Unmarshal(raw, &h.StartTime) == nil {
			return h.StartTime
		}
	}
	return time.Unix(0, 0)
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

// StorageDir returns the .gemini directory that holds sessionDir
// (~/.gemini/tmp/<project>/chats), or sessionDir itself when
// ENTIRE_TEST_GEMINI_PROJECT_DIR sets the session directory.
func (a *Agent) StorageDir(sessionDir string) string {
	if a.SessionDirOverride() != "" {
		return sessionDir
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(sessionDir)))
}
