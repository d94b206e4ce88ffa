package agenttest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/atomicfile"
)

// Synthetic agent identity. No client exists: the agent proves that the
// generic code asks the agent's capabilities and assumes no built-in
// agent's transcript shape.
const (
	SyntheticName agent.AgentName = "synthetic-test-agent"
	SyntheticType agent.AgentType = "Synthetic Test Agent"
	// SyntheticSessionDirEnv overrides the synthetic agent's session
	// directory.
	SyntheticSessionDirEnv = "ENTIRE_TEST_SYNTHETIC_SESSION_DIR"
)

// Synthetic is a third agent for tests whose transcript matches neither
// Claude Code's nor Gemini CLI's: JSONL records without "type", "uuid",
// "id", "message" or "content", one event each:
//
//	{"seq":1,"from":"human","words":"make a.txt"}
//	{"seq":2,"from":"bot","words":"on it","at":"2026-12-01T10:00:00Z"}
//	{"seq":3,"from":"bot","call":{"fn":"put","target":"a.txt"}}
//	{"seq":4,"meter":{"in":10,"out":3}}
//	{"synthetic_session":"s1"}                     (the header, first line)
//
// A "put" call writes its target; a record's ID is its seq. Register it
// with RegisterSynthetic.
type Synthetic struct {
	agent.Base[syntheticSpec]
}

type syntheticSpec struct{}

// Identity returns the synthetic agent's identity.
func (syntheticSpec) Identity() agent.Identity {
	return agent.Identity{
		Name:              SyntheticName,
		Type:              SyntheticType,
		Description:       "Synthetic test agent",
		ConfigDir:         ".synthetic",
		ResumeCommand:     "synthetic --resume",
		TestSessionDirEnv: SyntheticSessionDirEnv,
	}
}

var registerOnce sync.Once

// RegisterSynthetic registers the synthetic agent (once per process).
func RegisterSynthetic() {
	registerOnce.Do(func() {
		agent.Register(SyntheticName, func() agent.Agent { return &Synthetic{} })
	})
}

var (
	_ agent.TranscriptReader     = (*Synthetic)(nil)
	_ agent.TranscriptScanner    = (*Synthetic)(nil)
	_ agent.TranscriptRecognizer = (*Synthetic)(nil)
)

// syntheticRecord is one line of a synthetic transcript.
type syntheticRecord struct {
	Header string `json:"synthetic_session"`
	Seq    int    `json:"seq"`
	From   string `json:"from"`
	Words  string `json:"words"`
	At     string `json:"at"`
	Call   *struct {
		Fn     string `json:"fn"`
		Target string `json:"target"`
	} `json:"call"`
	Meter *struct {
		In  int `json:"in"`
		Out int `json:"out"`
	} `json:"meter"`
}

// ReadRecord reads one synthetic record.
func (s *Synthetic) ReadRecord(record []byte) agent.Record {
	var r syntheticRecord
	if json.Unmarshal(record, &r) != nil {
		return agent.Record{}
	}
	id := ""
	if r.Seq > 0 {
		id = strconv.Itoa(r.Seq)
	}
	e := agent.Entry{ID: id, Time: agent.ParseTime(r.At)}
	switch {
	case r.Call != nil && r.Call.Fn != "":
		e.Role, e.Tool, e.Text = agent.RoleTool, r.Call.Fn, r.Call.Target
		if r.Call.Fn == "put" && r.Call.Target != "" {
			e.Files = []string{r.Call.Target}
		}
	case r.From == "human" && strings.TrimSpace(r.Words) != "":
		e.Role, e.Text = agent.RoleUser, agent.PromptText(r.Words)
	case r.From == "bot" && strings.TrimSpace(r.Words) != "":
		e.Role, e.Text = agent.RoleAssistant, strings.TrimSpace(r.Words)
	default:
		return agent.Record{}
	}
	return agent.Record{Entries: []agent.Entry{e}}
}

// RecognizeTranscript reports whether content starts with the synthetic
// header line.
func (s *Synthetic) RecognizeTranscript(content []byte) bool {
	first, _, _ := strings.Cut(string(content), "\n")
	var r syntheticRecord
	return json.Unmarshal([]byte(first), &r) == nil && r.Header != ""
}

// ScanTranscript analyses the complete lines of path from `from` on.
func (s *Synthetic) ScanTranscript(path string, from agent.Position) (*agent.Analysis, error) {
	return agent.ScanJSONL(path, from, func(line []byte) (agent.Record, *agent.TokenUsage) {
		var r syntheticRecord
		if json.Unmarshal(line, &r) == nil && r.Meter != nil {
			return agent.Record{}, &agent.TokenUsage{InputTokens: r.Meter.In, OutputTokens: r.Meter.Out, APICallCount: 1}
		}
		return s.ReadRecord(line), nil
	})
}

// GetSessionDir returns the override, else ~/.synthetic/sessions.
func (s *Synthetic) GetSessionDir(string) (string, error) {
	if d := s.SessionDirOverride(); d != "" {
		return d, nil
	}
	home, err := s.HomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".synthetic", "sessions"), nil
}

// ReadSession reads the transcript input.SessionRef names.
func (s *Synthetic) ReadSession(input *agent.HookInput) (*agent.AgentSession, error) {
	if input == nil || input.SessionRef == "" {
		return nil, errors.New("read synthetic session: no transcript path")
	}
	data, err := agent.ReadTranscriptFile(input.SessionRef)
	if err != nil {
		return nil, fmt.Errorf("read synthetic session: %w", err)
	}
	out := &agent.AgentSession{SessionID: input.SessionID, AgentName: SyntheticName, SessionRef: input.SessionRef, NativeData: data}
	_, _ = agent.Records(s, data, func(_ int, rec agent.Record) {
		for _, e := range rec.Entries {
			for _, p := range e.Files {
				out.ModifiedFiles = agent.AppendUnique(out.ModifiedFiles, p)
			}
		}
	})
	return out, nil
}

// WriteSession writes the transcript to its SessionRef, else to
// <session dir>/<id>.jsonl.
func (s *Synthetic) WriteSession(session *agent.AgentSession) error {
	path := session.SessionRef
	if path == "" {
		if session.SessionID == "" || strings.ContainsAny(session.SessionID, `/\`) || strings.HasPrefix(session.SessionID, ".") {
			return fmt.Errorf("write synthetic session: bad session id %q", session.SessionID)
		}
		dir, err := s.GetSessionDir(session.RepoPath)
		if err != nil {
			return err
		}
		path = filepath.Join(dir, session.SessionID+".jsonl")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("write synthetic session: %w", err)
	}
	if err := atomicfile.Write(path, session.NativeData, 0o600); err != nil {
		return fmt.Errorf("write synthetic session: %w", err)
	}
	return nil
}
