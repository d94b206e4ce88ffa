package external

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/entirecli/entire/agent"
)

// TranscriptFormat returns TranscriptDocument: an external agent's
// transcript is stored whole and split by the program (chunk-transcript),
// whatever its shape.
func (a *Agent) TranscriptFormat([]byte) agent.TranscriptFormat { return agent.TranscriptDocument }

// ScanTranscript analyses the transcript whose copy is at path from
// from.Entries, a position as the program counts it: prompts through
// extract-prompts and files through extract-modified-files (with the
// transcript_analyzer capability), tokens through calculate-tokens (with
// token_calculator). Without an analyzer the position does not move and
// nothing is read from the transcript: the step records the work tree.
// A missing copy gives an error wrapping fs.ErrNotExist.
func (a *Agent) ScanTranscript(path string, from agent.Position) (*agent.Analysis, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	an := &agent.Analysis{From: from, To: from}
	ref := a.originalRef(path)
	offset := strconv.Itoa(from.Entries)
	ctx := context.Background()
	caps := a.info.Capabilities
	if caps.TranscriptAnalyzer {
		var files struct {
			Files           []string `json:"files"`
			CurrentPosition *int     `json:"current_position"`
		}
		if err := a.run.callJSON(ctx, &files, nil, "extract-modified-files", "--path", ref, "--offset", offset); err != nil {
			return nil, err
		}
		for _, f := range files.Files {
			if f != "" && printable(f) && !strings.ContainsRune(f, 0) {
				an.ModifiedFiles = agent.AppendUnique(an.ModifiedFiles, f)
			}
		}
		if files.CurrentPosition != nil && *files.CurrentPosition >= 0 {
			an.To = agent.Position{Entries: *files.CurrentPosition}
		}
		var prompts struct {
			Prompts []string `json:"prompts"`
		}
		if err := a.run.callJSON(ctx, &prompts, nil, "extract-prompts", "--session-ref", ref, "--offset", offset); err != nil {
			return nil, err
		}
		for _, p := range prompts.Prompts {
			if p = strings.TrimSpace(p); p != "" {
				an.Prompts = append(an.Prompts, p)
			}
		}
	}
	if caps.TokenCalculator {
		data, err := agent.ReadTranscriptFile(path)
		if err != nil {
			return nil, err
		}
		u, err := a.tokens(ctx, data, offset)
		if err != nil {
			return nil, err
		}
		an.Tokens = *u
	}
	return an, nil
}

// tokenAnswer is calculate-tokens' answer: input_tokens and output_tokens
// are required.
type tokenAnswer struct {
	InputTokens         *int         `json:"input_tokens"`
	CacheCreationTokens int          `json:"cache_creation_tokens"`
	CacheReadTokens     int          `json:"cache_read_tokens"`
	OutputTokens        *int         `json:"output_tokens"`
	APICallCount        int          `json:"api_call_count"`
	SubagentTokens      *tokenAnswer `json:"subagent_tokens"`
}

func (t *tokenAnswer) usage() (*agent.TokenUsage, error) {
	if t.InputTokens == nil || t.OutputTokens == nil {
		return nil, fmt.Errorf("no input_tokens or output_tokens")
	}
	u := &agent.TokenUsage{InputTokens: *t.InputTokens, CacheCreationTokens: t.CacheCreationTokens,
		CacheReadTokens: t.CacheReadTokens, OutputTokens: *t.OutputTokens, APICallCount: t.APICallCount}
	if u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheCreationTokens < 0 || u.CacheReadTokens < 0 || u.APICallCount < 0 {
		return nil, fmt.Errorf("negative token counts")
	}
	if t.SubagentTokens != nil {
		sub, err := t.SubagentTokens.usage()
		if err != nil {
			return nil, fmt.Errorf("subagent_tokens: %w", err)
		}
		u.SubagentTokens = sub
	}
	return u, nil
}

// tokens runs calculate-tokens --offset on the transcript data.
func (a *Agent) tokens(ctx context.Context, data []byte, offset string) (*agent.TokenUsage, error) {
	args := []string{"calculate-tokens", "--offset", offset}
	out, err := a.run.run(ctx, call{args: args, stdin: data, timeout: TranscriptTimeout, limit: maxJSONAnswer})
	if err != nil {
		return nil, err
	}
	var t tokenAnswer
	if err := decodeJSON(a.run.label(args), out, &t); err != nil {
		return nil, err
	}
	u, err := t.usage()
	if err != nil {
		return nil, fmt.Errorf("%w: %s calculate-tokens: %v", ErrProtocol, a.info.Name, err)
	}
	return u, nil
}

// EndPosition returns the position past the end of content as the
// program counts it (get-transcript-position of a temporary file holding
// content); the start when it cannot tell or has no analyzer.
func (a *Agent) EndPosition(content []byte) agent.Position {
	if !a.info.Capabilities.TranscriptAnalyzer {
		return agent.Position{}
	}
	f, err := os.CreateTemp("", "entire-external-*.transcript")
	if err != nil {
		return agent.Position{}
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(content)
	if cerr := f.Close(); werr != nil || cerr != nil {
		return agent.Position{}
	}
	var out struct {
		Position int `json:"position"`
	}
	if a.run.callJSON(context.Background(), &out, nil, "get-transcript-position", "--path", f.Name()) != nil || out.Position < 0 {
		return agent.Position{}
	}
	return agent.Position{Entries: out.Position}
}

// ChunkTranscript runs chunk-transcript --max-size maxSize. A transcript
// that fits is returned as it is, without a call.
func (a *Agent) ChunkTranscript(content []byte, maxSize int) ([][]byte, error) {
	if len(content) <= maxSize {
		return [][]byte{content}, nil
	}
	return a.run.Chunk(context.Background(), content, maxSize)
}

// ReassembleTranscript runs reassemble-transcript; one chunk is returned
// as it is, without a call.
func (a *Agent) ReassembleTranscript(chunks [][]byte) ([]byte, error) {
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	return a.run.Reassemble(context.Background(), chunks)
}

// DocumentRecords splits a stored transcript into records for reading:
// its lines when it is JSON lines, else the whole as one record.
func (a *Agent) DocumentRecords(content []byte) ([]json.RawMessage, error) {
	var out []json.RawMessage
	for _, l := range bytes.Split(content, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			out = append(out, json.RawMessage(l))
		}
	}
	return out, nil
}

// ReadRecord reads one record the way most agents write them, since the
// protocol gives no reader: an object whose "role" or "type" is user or
// assistant, with its text in "content", "text" or "message" (a string,
// or content parts {"type":"text","text"}). Anything else is an empty
// Record.
func (a *Agent) ReadRecord(record []byte) agent.Record {
	return ReadGenericRecord(record)
}

// ReadGenericRecord is ReadRecord, for transcripts whose agent is not
// installed here.
func ReadGenericRecord(record []byte) agent.Record {
	var r struct {
		Role    string          `json:"role"`
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
		Text    json.RawMessage `json:"text"`
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(record, &r) != nil {
		return agent.Record{}
	}
	var msg struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if len(r.Message) > 0 && r.Message[0] == '{' {
		_ = json.Unmarshal(r.Message, &msg)
	}
	role := strings.ToLower(firstOf(r.Role, msg.Role, r.Type))
	var text string
	for _, raw := range []json.RawMessage{r.Content, r.Text, msg.Content, r.Message} {
		if text = partsText(raw); text != "" {
			break
		}
	}
	if text == "" {
		return agent.Record{}
	}
	switch role {
	case "user", "human":
		return agent.Record{Entries: []agent.Entry{{Role: agent.RoleUser, Text: agent.PromptText(text)}}}
	case "assistant", "model", "ai":
		return agent.Record{Entries: []agent.Entry{{Role: agent.RoleAssistant, Text: text}}}
	}
	return agent.Record{}
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// partsText returns the text of a string or of an array of content parts.
func partsText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b []string
	for _, p := range parts {
		if (p.Type == "text" || p.Type == "") && strings.TrimSpace(p.Text) != "" {
			b = append(b, strings.TrimSpace(p.Text))
		}
	}
	return strings.Join(b, "\n")
}

// ReadSession runs read-session on the protocol's HookInput object of
// input; the session's reference must pass the session_ref constraints.
func (a *Agent) ReadSession(input *agent.HookInput) (*agent.AgentSession, error) {
	if input == nil {
		return nil, fmt.Errorf("read %s session: no input", a.info.Name)
	}
	obj := hookInputObject{HookType: string(input.HookType), SessionID: input.SessionID, SessionRef: a.originalRef(input.SessionRef),
		UserPrompt: input.UserPrompt, ToolName: input.ToolName, ToolUseID: input.ToolUseID}
	if !input.Timestamp.IsZero() {
		obj.Timestamp = input.Timestamp.UTC().Format("2006-01-02T15:04:05Z07:00")
	}
	if json.Valid(input.ToolInput) {
		obj.ToolInput = input.ToolInput
	}
	in, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	args := []string{"read-session"}
	out, err := a.run.run(context.Background(), call{args: args, stdin: in, timeout: TranscriptTimeout, limit: MaxTranscript * 2})
	if err != nil {
		return nil, err
	}
	var s sessionObject
	if err := decodeJSON(a.run.label(args), out, &s); err != nil {
		return nil, err
	}
	dir, _ := a.repoSessionDir()
	if err := CheckSessionRef(s.SessionRef, dir); err != nil {
		return nil, fmt.Errorf("%w: %s read-session: %v", ErrProtocol, a.info.Name, err)
	}
	return &agent.AgentSession{SessionID: s.SessionID, AgentName: a.Name(), RepoPath: s.RepoPath, SessionRef: s.SessionRef,
		StartTime: agent.ParseTime(s.StartTime), NativeData: s.NativeData, ModifiedFiles: s.ModifiedFiles,
		NewFiles: s.NewFiles, DeletedFiles: s.DeletedFiles}, nil
}

// SessionFilePath returns where the program keeps the session: its
// SessionRef when set, else resolve-session-file in the directory
// get-session-dir names for the session's repository; the answer must lie
// inside that directory.
func (a *Agent) SessionFilePath(session *agent.AgentSession) (string, error) {
	repo := session.RepoPath
	if repo == "" {
		repo = a.run.RepoRoot
	}
	dir, err := a.GetSessionDir(repo)
	if err != nil {
		return "", err
	}
	if session.SessionRef != "" {
		if err := CheckSessionRef(session.SessionRef, dir); err != nil {
			return "", fmt.Errorf("%w: %v", ErrProtocol, err)
		}
		return session.SessionRef, nil
	}
	if !sessionIDPattern.MatchString(session.SessionID) || strings.Contains(session.SessionID, "..") {
		return "", fmt.Errorf("session ID %q cannot name a session", session.SessionID)
	}
	var out struct {
		SessionFile string `json:"session_file"`
	}
	if err := a.run.callJSON(context.Background(), &out, nil, "resolve-session-file", "--session-dir", dir, "--session-id", session.SessionID); err != nil {
		return "", err
	}
	if out.SessionFile == "" {
		return "", fmt.Errorf("%w: %s resolve-session-file: no session_file", ErrProtocol, a.info.Name)
	}
	if err := CheckSessionRef(out.SessionFile, dir); err != nil {
		return "", fmt.Errorf("%w: %s resolve-session-file: %v", ErrProtocol, a.info.Name, err)
	}
	return out.SessionFile, nil
}

// StorageDir returns "": the program's write-session makes what it needs.
func (a *Agent) StorageDir(string) string { return "" }

// TestSessionDirEnv returns "": the program has its own.
func (a *Agent) TestSessionDirEnv() string { return "" }

// WriteSession hands the session to the program's write-session, with
// its reference resolved by SessionFilePath, so that the agent resumes
// it.
func (a *Agent) WriteSession(session *agent.AgentSession) error {
	if session == nil {
		return fmt.Errorf("write %s session: nil session", a.info.Name)
	}
	ref, err := a.SessionFilePath(session)
	if err != nil {
		return fmt.Errorf("write %s session: %w", a.info.Name, err)
	}
	repo := session.RepoPath
	if repo == "" {
		repo = a.run.RepoRoot
	}
	obj := sessionObject{SessionID: session.SessionID, AgentName: a.info.Name, RepoPath: repo, SessionRef: ref,
		NativeData: session.NativeData, ModifiedFiles: orEmpty(session.ModifiedFiles), NewFiles: orEmpty(session.NewFiles),
		DeletedFiles: orEmpty(session.DeletedFiles)}
	if !session.StartTime.IsZero() {
		obj.StartTime = session.StartTime.UTC().Format("2006-01-02T15:04:05Z07:00")
	}
	in, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if _, err := a.in(repo).run(context.Background(), call{args: []string{"write-session"}, stdin: in, timeout: TranscriptTimeout, limit: maxJSONAnswer}); err != nil {
		return fmt.Errorf("write %s session: %w", a.info.Name, err)
	}
	return nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// TranscriptCopyWritten hands a transcript copy a rewind rewrote back to
// the program (write-session of its content under the reference it was
// read from), so that the agent goes on from the rewound conversation.
func (a *Agent) TranscriptCopyWritten(sessionID, path string) error {
	data, err := agent.ReadTranscriptFile(path)
	if err != nil {
		return err
	}
	ref := a.originalRef(path)
	if ref == path {
		ref = ""
	}
	return a.WriteSession(&agent.AgentSession{SessionID: sessionID, AgentName: a.Name(), RepoPath: a.run.RepoRoot,
		SessionRef: ref, NativeData: data})
}

var _ = filepath.Join
