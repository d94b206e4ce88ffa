package rewind

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/session"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ErrNoSessionDir is returned (wrapped) when the directory where the
// agent keeps a session's transcript does not exist.
var ErrNoSessionDir = errors.New("rewind: agent session directory missing")

// Transcript is an agent transcript a rewind writes back.
type Transcript struct {
	// SessionID is the agent's session.
	SessionID string
	// Path is the file the agent reads the session from.
	Path string
	// ResumeCommand resumes the session ("claude -r <id>"); "" for an
	// unknown agent.
	ResumeCommand string
	// Prompt is the session's first prompt, for the resume hint.
	Prompt string
	data   []byte
	// chunks are the stored blobs whose reassembly is data (nil when data
	// was cut): an undo point stores only what the file holds beyond them.
	chunks []plumbing.Hash
}

// sessionFilePather is implemented by agents that know the file a session
// is written to.
type sessionFilePather interface {
	SessionFilePath(*agent.AgentSession) (string, error)
}

// transcriptTarget returns where a session's transcript lives (SPEC 4.6):
// the state's live transcript path, else the agent's naming in its session
// directory. st may be nil; agentType may be empty.
func (r *Rewinder) transcriptTarget(sessionID string, st *session.State, agentType string) (string, agent.Agent, error) {
	if st != nil && agentType == "" {
		agentType = st.AgentType
	}
	ag, _ := agent.GetByAgentType(agent.AgentType(agentType))
	if st != nil && st.TranscriptPath != "" {
		return st.TranscriptPath, ag, nil
	}
	if ag == nil {
		return "", nil, fmt.Errorf("session %s: no transcript path recorded and unknown agent %q", sessionID, agentType)
	}
	s := &agent.AgentSession{SessionID: sessionID, AgentName: ag.Name(), RepoPath: r.repo.Root}
	if p, ok := ag.(sessionFilePather); ok {
		path, err := p.SessionFilePath(s)
		return path, ag, err
	}
	dir, err := ag.GetSessionDir(r.repo.Root)
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(dir, sessionID+".jsonl"), ag, nil
}

// requireDir fails with ErrNoSessionDir when the directory of path is
// missing.
func requireDir(path string) error {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%w: %s does not exist (is the agent's data elsewhere, or was the session deleted?)", ErrNoSessionDir, dir)
	}
	return nil
}

// stepTranscript returns the transcript stored in a shadow commit for a
// session (for a task point, cut after the task's checkpoint UUID, SPEC
// 4.7) and the chunk blobs it was reassembled from (nil when cut, or when
// long lines had values moved out, see prefixChunks); nil when the commit
// stores none.
func (r *Rewinder) stepTranscript(tree *object.Tree, p Point) ([]byte, []plumbing.Hash, error) {
	dir := checkpoint.MetadataDirPrefix + p.SessionID
	sub, err := tree.Tree(dir)
	if err != nil {
		return nil, nil, nil
	}
	stored := checkpoint.StoredIn(sub)
	if len(stored.Chunks) == 0 {
		return nil, nil, nil
	}
	data, err := checkpoint.ReadTranscript(r.repo, stored, "")
	if err != nil {
		return nil, nil, fmt.Errorf("transcript of %s: %w", p.Short(), err)
	}
	chunks := prefixChunks(stored)
	if p.IsTaskCheckpoint {
		if f, err := tree.File(p.MetadataDir + "/checkpoint.json"); err == nil {
			if b, err := r.repo.ReadBlob(f.Hash); err == nil {
				var cp struct {
					UUID string `json:"checkpoint_uuid"`
				}
				if json.Unmarshal(b, &cp) == nil && cp.UUID != "" {
					data = (&agent.AgentSession{NativeData: data}).TruncateAtUUID(cp.UUID).NativeData
					chunks = nil
				}
			}
		}
	}
	return data, chunks, nil
}

// prefixChunks returns the chunks of a stored transcript that an undo
// point may keep instead of the bytes they hold: nil when the transcript
// has values moved out of long lines, whose chunks alone do not give it
// back.
func prefixChunks(s checkpoint.Stored) []plumbing.Hash {
	if !s.Blobs.IsZero() {
		return nil
	}
	return s.Chunks
}

// checkpointTranscripts returns the transcripts of every session slot of a
// committed checkpoint with their targets (SPEC 6.3 step 4): $HOME plus the
// slot's transcript_path, else the session state's, else the agent's
// naming. Slots without a session ID or a transcript are skipped.
func (r *Rewinder) checkpointTranscripts(id checkpoint.ID) ([]Transcript, error) {
	cp, err := checkpoint.NewStore(r.repo, r.now).Read(id)
	if err != nil {
		return nil, err
	}
	var out []Transcript
	for _, s := range cp.Sessions {
		m := s.Metadata
		if m.SessionID == "" || session.ValidateID(m.SessionID) != nil {
			continue
		}
		data, err := s.Transcript()
		if err != nil {
			r.printf("Skipping session %s: %v\n", m.SessionID, err)
			continue
		}
		st, _ := r.sessions.Load(m.SessionID)
		// The stored label is not trusted: Entire 0.4.x wrote "Gemini CLI"
		// on Claude JSONL.
		label := agent.ForTranscript(m.Agent, data).Type()
		if st != nil && st.TranscriptPath != "" && st.AgentType != "" && st.AgentType != string(label) {
			st = nil // another agent's session with the same ID
		}
		path, ag, err := r.transcriptTarget(m.SessionID, st, string(label))
		if m.TranscriptPath != "" {
			path = m.TranscriptPath
			if !filepath.IsAbs(path) {
				home, herr := r.home()
				if herr != nil {
					return nil, fmt.Errorf("home directory: %w", herr)
				}
				path = filepath.Join(home, filepath.FromSlash(path))
			}
		} else if err != nil {
			return nil, err
		}
		t := Transcript{SessionID: m.SessionID, Path: path, data: data, chunks: prefixChunks(s.StoredTranscript())}
		if ag != nil {
			t.ResumeCommand = ag.FormatResumeCommand(m.SessionID)
		}
		if ps := s.Prompts(); len(ps) > 0 {
			t.Prompt = firstLine(ps[0], 60)
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("checkpoint %s stores no session transcript", id)
	}
	return out, nil
}

// writeTranscripts writes transcripts atomically (mode 0600, parents 0750)
// and fixes the transcript bookkeeping of their sessions' states: the
// stored-chunk state is dropped (the next step stores the file anew; chunks
// with the same bytes are not written again) and the analysis cursor is
// put at the end of the new file, as the session's agent counts positions,
// so that the next turn sees only its own prompts and tokens.
func (r *Rewinder) writeTranscripts(ts []Transcript) error {
	for _, t := range ts {
		if err := agent.WriteFileAtomic(t.Path, t.data, 0o600); err != nil {
			return fmt.Errorf("write transcript of %s: %w", t.SessionID, err)
		}
		err := r.sessions.Update(t.SessionID, func(st *session.State, exists bool) error {
			if !exists {
				return errNoState
			}
			st.ShadowTranscript, st.TranscriptCursor = nil, endCursor(st.AgentType, t.data)
			return nil
		})
		if err != nil && !errors.Is(err, errNoState) {
			return fmt.Errorf("update session %s: %w", t.SessionID, err)
		}
	}
	return nil
}

var errNoState = errors.New("no session state")

// endCursor returns the analysis position at the end of a transcript, as
// the agent that wrote it counts positions (the session's agent, unless
// the content says otherwise); nil when that agent cannot tell.
func endCursor(agentType string, data []byte) *session.TranscriptCursor {
	e, ok := agent.ForTranscript(agent.AgentType(agentType), data).(agent.TranscriptEnder)
	if !ok {
		return nil
	}
	p := e.EndPosition(data)
	return &session.TranscriptCursor{Entries: p.Entries, Offset: p.Offset, LastID: p.LastID}
}

// currentTranscripts reads the files that ts would overwrite (absent files
// are recorded as absent), for the undo point.
func currentTranscripts(ts []Transcript) ([]savedTranscript, error) {
	var out []savedTranscript
	for _, t := range ts {
		data, err := os.ReadFile(t.Path)
		if errors.Is(err, fs.ErrNotExist) {
			out = append(out, savedTranscript{SessionID: t.SessionID, Path: t.Path, Absent: true})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read transcript %s: %w", t.Path, err)
		}
		saved := savedTranscript{SessionID: t.SessionID, Path: t.Path, data: data}
		if t.chunks != nil && bytes.HasPrefix(data, t.data) {
			// The file grew from the restored transcript (the usual case):
			// keep only the part after it, the rest is in git already.
			saved.data = data[len(t.data):]
			saved.prefix = t.chunks
			for _, c := range t.chunks {
				saved.PrefixChunks = append(saved.PrefixChunks, c.String())
			}
		}
		out = append(out, saved)
	}
	return out, nil
}

// savedTranscript is a transcript as kept in an undo point.
type savedTranscript struct {
	SessionID string `json:"session_id"`
	Path      string `json:"path"`
	Absent    bool   `json:"absent,omitempty"`
	// PrefixChunks are stored transcript chunks whose reassembly precedes
	// the saved bytes.
	PrefixChunks []string `json:"prefix_chunks,omitempty"`
	data         []byte
	prefix       []plumbing.Hash
}
