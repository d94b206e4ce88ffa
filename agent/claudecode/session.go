package claudecode

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/agent"
)

// SanitizePath turns an absolute project path into Claude Code's project
// directory name: every character that is not an ASCII letter or digit
// becomes '-'. (Claude Code shortens names over 200 characters with a hash
// suffix; that form is not reproduced.)
func SanitizePath(p string) string {
	var b strings.Builder
	b.Grow(len(p))
	for _, r := range p {
		if (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// GetSessionDir returns ~/.claude/projects/<sanitized absolute repoPath>
// ($CLAUDE_CONFIG_DIR replaces ~/.claude). ENTIRE_TEST_CLAUDE_PROJECT_DIR,
// when set, is returned as is.
func (a *Agent) GetSessionDir(repoPath string) (string, error) {
	if v := a.EnvVar(EnvTestProjectDir); v != "" {
		return v, nil
	}
	abs, err := filepath.Abs(repoPath)
	if err != nil {
		return "", fmt.Errorf("claude session dir: %w", err)
	}
	base := a.EnvVar(EnvConfigDir)
	if base == "" {
		home, err := a.HomeDir()
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, ".claude")
	}
	return filepath.Join(base, "projects", SanitizePath(abs)), nil
}

// ReadSession reads the transcript at input.SessionRef. ModifiedFiles is
// filled from the transcript's file-writing tool calls.
func (a *Agent) ReadSession(input *agent.HookInput) (*agent.AgentSession, error) {
	if input == nil || input.SessionRef == "" {
		return nil, errors.New("read claude session: no transcript path")
	}
	data, err := agent.ReadTranscriptFile(input.SessionRef)
	if err != nil {
		return nil, fmt.Errorf("read claude session: %w", err)
	}
	an := AnalyzeTranscript(data, agent.Position{})
	return &agent.AgentSession{
		SessionID:     input.SessionID,
		AgentName:     a.Name(),
		SessionRef:    input.SessionRef,
		StartTime:     input.Timestamp,
		NativeData:    data,
		ModifiedFiles: an.ModifiedFiles,
	}, nil
}

// SessionFilePath returns where WriteSession writes session: its SessionRef
// when set, else <session dir of RepoPath>/<session id>.jsonl.
func (a *Agent) SessionFilePath(session *agent.AgentSession) (string, error) {
	if session.SessionRef != "" {
		return session.SessionRef, nil
	}
	if err := validSessionID(session.SessionID); err != nil {
		return "", err
	}
	dir, err := a.GetSessionDir(session.RepoPath)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, session.SessionID+".jsonl"), nil
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

func validSessionID(id string) error {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) {
		return fmt.Errorf("invalid session id %q", id)
	}
	return nil
}

// ChunkTranscript splits JSONL content at line boundaries (agent.ChunkJSONL).
func (a *Agent) ChunkTranscript(content []byte, maxSize int) ([][]byte, error) {
	return agent.ChunkJSONL(content, maxSize)
}

// ReassembleTranscript joins chunks with newlines (agent.ReassembleJSONL).
func (a *Agent) ReassembleTranscript(chunks [][]byte) ([]byte, error) {
	return agent.ReassembleJSONL(chunks), nil
}

// SubagentTranscriptPaths returns the candidate transcript files of subagent
// agentID spawned from the session whose transcript is transcriptPath, most
// recent layout first: 2.1 `<dir>/<session>/subagents/agent-<id>.jsonl`, then
// 2.0 `<dir>/agent-<id>.jsonl`. (1.0 kept subagents inline; see
// agent.Analysis.Tokens.SubagentTokens.)
func SubagentTranscriptPaths(transcriptPath, agentID string) []string {
	dir := filepath.Dir(transcriptPath)
	session := strings.TrimSuffix(filepath.Base(transcriptPath), filepath.Ext(transcriptPath))
	name := "agent-" + agentID + ".jsonl"
	return []string{filepath.Join(dir, session, "subagents", name), filepath.Join(dir, name)}
}

// SubagentTokenUsage sums the usage of the given subagents' whole
// transcripts (see SubagentTranscriptPaths). IDs without a file are skipped;
// the result is nil when no file was found or none recorded usage.
func (a *Agent) SubagentTokenUsage(transcriptPath string, agentIDs []string) (*agent.TokenUsage, error) {
	var total agent.TokenUsage
	for _, id := range agentIDs {
		if id == "" || strings.ContainsAny(id, `/\.`) {
			continue
		}
		for _, p := range SubagentTranscriptPaths(transcriptPath, id) {
			an, err := a.ScanTranscript(p, agent.Position{})
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			// Subagent files mark every line isSidechain, so their usage
			// lands in SubagentTokens; count both parts.
			total.Add(&agent.TokenUsage{
				InputTokens: an.Tokens.InputTokens, CacheCreationTokens: an.Tokens.CacheCreationTokens,
				CacheReadTokens: an.Tokens.CacheReadTokens, OutputTokens: an.Tokens.OutputTokens,
				APICallCount: an.Tokens.APICallCount,
			})
			if an.Tokens.SubagentTokens != nil {
				sub := *an.Tokens.SubagentTokens
				total.Add(&sub)
			}
			break
		}
	}
	if total.IsZero() {
		return nil, nil
	}
	return &total, nil
}

// SubagentTranscriptPaths is the method form of the package function, so
// that callers holding an agent.Agent can find subagent transcripts.
func (a *Agent) SubagentTranscriptPaths(transcriptPath, agentID string) []string {
	return SubagentTranscriptPaths(transcriptPath, agentID)
}

// StorageDir returns the Claude Code configuration directory that holds
// sessionDir (<config>/projects/<project>), or sessionDir itself when
// ENTIRE_TEST_CLAUDE_PROJECT_DIR sets the session directory.
func (a *Agent) StorageDir(sessionDir string) string {
	if a.SessionDirOverride() != "" {
		return sessionDir
	}
	return filepath.Dir(filepath.Dir(sessionDir))
}
