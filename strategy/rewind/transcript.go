package rewind

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/strategy/rewind/undostore"
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
	// ResumeCommand resumes the session (the agent's
	// FormatResumeCommand); "" for an unknown agent.
	ResumeCommand string
	// Prompt is the session's first prompt, for the resume hint.
	Prompt string
	data   []byte
	// chunks are the stored blobs whose reassembly is data (nil when data
	// was cut): an undo point reads them when the file no longer starts
	// with data.
	chunks []plumbing.Hash
	// cut, when set, is the raw prefix of the live file the transcript
	// is restored to by cutting the file there (data is then nil).
	cut *cutPlan
	// stream, when set, is the stored JSONL transcript written to the
	// absent file one chunk at a time (data is then nil).
	stream *checkpoint.Stored
}

// transcriptTarget returns where a session's transcript is written back:
// the state's live transcript path (the file the agent uses on this
// machine), else the file the agent's own session writer picks in its
// session directory for this repository, as resume writes it (data, the
// transcript to write, picks Gemini CLI's file name). st may be nil;
// agentType may be empty.
func (r *Rewinder) transcriptTarget(sessionID string, st *session.State, agentType string, data []byte) (string, agent.Agent, error) {
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
	s := &agent.AgentSession{SessionID: sessionID, AgentName: ag.Name(), RepoPath: r.repo.Root, NativeData: data}
	if p, ok := ag.(agent.SessionStore); ok {
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
// committed checkpoint with their targets: the session state's live path,
// else the file the agent's session writer picks for this repository, as
// resume does, so that the printed resume command finds the session. SPEC
// 4.6 put $HOME plus the slot's transcript_path first, a path of the
// machine that recorded the session. Slots without a session ID or a
// transcript are skipped.
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
		st, _ := r.sessions.Load(m.SessionID)
		if st != nil && st.TranscriptPath != "" && st.AgentType == string(m.Agent) {
			cut := r.cutFor(m.SessionID, st.TranscriptPath, s.ContentHash())
			stored := s.StoredTranscript()
			if cut != nil || r.streamable(stored, st.TranscriptPath) {
				var prompt string
				if ps := s.Prompts(); len(ps) > 0 {
					prompt = ps[0]
				}
				t := liveTranscript(m.SessionID, st.TranscriptPath, m.Agent, prompt)
				if t.cut = cut; cut == nil {
					t.stream = &stored
				}
				out = append(out, t)
				continue
			}
		}
		data, err := s.Transcript()
		if err != nil {
			r.printf("Skipping session %s: %v\n", m.SessionID, err)
			continue
		}
		// The stored label is not trusted: Entire 0.4.x wrote "Gemini CLI"
		// on Claude JSONL.
		label := agent.ForTranscript(m.Agent, data).Type()
		if st != nil && st.TranscriptPath != "" && st.AgentType != "" && st.AgentType != string(label) {
			st = nil // another agent's session with the same ID
		}
		path, ag, err := r.transcriptTarget(m.SessionID, st, string(label), data)
		if err != nil {
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
		if t.cut != nil {
			if err := r.applyCut(t); err != nil {
				return err
			}
			r.handBack(t)
			continue
		}
		if t.stream != nil {
			if err := r.writeStream(t); err != nil {
				return err
			}
			r.handBack(t)
			continue
		}
		defer r.handBack(t)
		if err := atomicfile.Write(t.Path, t.data, 0o600); err != nil {
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

// handBack hands a rewritten transcript to its agent when the file is a
// copy the agent does not read itself (agent.CopiedTranscript: an
// external agent's); a failure is said, the files stay rewound.
func (r *Rewinder) handBack(t Transcript) {
	st, err := r.sessions.Load(t.SessionID)
	if err != nil || st == nil || st.TranscriptPath != t.Path {
		return
	}
	ag, err := agent.GetByAgentType(agent.AgentType(st.AgentType))
	c, ok := ag.(agent.CopiedTranscript)
	if err != nil || !ok {
		return
	}
	if err := c.TranscriptCopyWritten(t.SessionID, t.Path); err != nil {
		r.printf("  Warning: %s did not take the rewound transcript of %s: %s\n", st.AgentType, t.SessionID, iostreams.Escape(err.Error()))
	}
}

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

// savedTranscript is a transcript as an undo point keeps it: absent, or
// Size bytes with checksum SHA256, rebuilt by Ops from Base (the
// transcript the rewind writes back) and the point's data.
type savedTranscript struct {
	SessionID string          `json:"session_id"`
	Path      string          `json:"path"`
	Absent    bool            `json:"absent,omitempty"`
	Size      int64           `json:"size,omitempty"`
	SHA256    string          `json:"sha256,omitempty"`
	Base      *transcriptBase `json:"base,omitempty"`
	Ops       []deltaOp       `json:"ops,omitempty"`
}

// transcriptBase identifies what a rewind writes to a transcript file:
// after the rewind the file starts with it (the agent only appends), so
// an undo point stores no second copy of it.
type transcriptBase struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Chunks are the stored transcript chunks whose reassembly is the
	// base, read instead when the file no longer starts with it (while a
	// shadow branch keeps them).
	Chunks []string `json:"chunks,omitempty"`
}

// saveTranscripts reads the files that ts would overwrite, for an undo
// point: an absent file is recorded as absent; a present one as a delta
// against what the rewind writes (for a transcript cut back to an earlier
// turn, only the cut tail is saved).
func saveTranscripts(ts []Transcript, b *dataBuilder) ([]savedTranscript, error) {
	var out []savedTranscript
	for _, t := range ts {
		if !filepath.IsAbs(t.Path) {
			return nil, fmt.Errorf("transcript of %s: not an absolute path: %s", t.SessionID, t.Path)
		}
		if t.stream != nil {
			if _, err := os.Lstat(t.Path); !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("transcript %s appeared while the rewind was planned; nothing was changed, run the rewind again", t.Path)
			}
			out = append(out, savedTranscript{SessionID: t.SessionID, Path: t.Path, Absent: true})
			continue
		}
		if t.cut != nil {
			s, err := saveCut(t, b)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
			continue
		}
		data, err := os.ReadFile(t.Path)
		if errors.Is(err, fs.ErrNotExist) {
			out = append(out, savedTranscript{SessionID: t.SessionID, Path: t.Path, Absent: true})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read transcript %s: %w", t.Path, err)
		}
		s := savedTranscript{SessionID: t.SessionID, Path: t.Path, Size: int64(len(data)), SHA256: sha256Hex(data),
			Base: &transcriptBase{Size: int64(len(t.data)), SHA256: sha256Hex(t.data)}}
		for _, c := range t.chunks {
			s.Base.Chunks = append(s.Base.Chunks, c.String())
		}
		s.Ops = lineDelta(t.data, data, b)
		out = append(out, s)
	}
	return out, nil
}

// rebuildTranscripts rebuilds the transcripts an undo point saved (data
// nil for an absent one). The base of a delta is read from the file's
// first bytes (bounded by the base's size), else from the stored chunks;
// a transcript that cannot be rebuilt byte for byte is an error.
func (r *Rewinder) rebuildTranscripts(name string, saved []savedTranscript, data []byte) ([]Transcript, error) {
	var out []Transcript
	for _, s := range saved {
		if s.Path == "" || !filepath.IsAbs(s.Path) || filepath.Clean(s.Path) != s.Path {
			return nil, fmt.Errorf("%w: undo point %s: bad transcript path %q", undostore.ErrCorrupt, name, s.Path)
		}
		t := Transcript{SessionID: s.SessionID, Path: s.Path}
		if s.Absent {
			out = append(out, t)
			continue
		}
		if s.Size < 0 || s.Size > undostore.MaxData {
			return nil, fmt.Errorf("%w: undo point %s: bad transcript size %d", undostore.ErrCorrupt, name, s.Size)
		}
		var base []byte
		if s.Base != nil {
			base = r.transcriptBase(s.Path, *s.Base)
			if base == nil {
				return nil, fmt.Errorf("undo point %s: the transcript of session %s no longer starts with what the rewind wrote to it, and the stored copy is gone; nothing was changed", name, s.SessionID)
			}
		}
		b, err := applyDelta(base, data, s.Ops, s.Size)
		if err == nil && sha256Hex(b) != s.SHA256 {
			err = errors.New("checksum mismatch")
		}
		if err != nil {
			return nil, fmt.Errorf("%w: undo point %s: transcript of session %s: %v", undostore.ErrCorrupt, name, s.SessionID, err)
		}
		t.data = b
		out = append(out, t)
	}
	return out, nil
}

// transcriptBase returns the base of a saved transcript: the first bytes
// of the file at path, else the stored chunks; nil when neither matches.
func (r *Rewinder) transcriptBase(path string, want transcriptBase) []byte {
	if want.Size < 0 || want.Size > undostore.MaxData {
		return nil
	}
	if b := readPrefix(path, want); b != nil {
		return b
	}
	if len(want.Chunks) == 0 {
		return nil
	}
	var hs []plumbing.Hash
	for _, c := range want.Chunks {
		h := plumbing.NewHash(c)
		if !r.repo.HasObject(h) {
			return nil
		}
		hs = append(hs, h)
	}
	b, err := checkpoint.ReadTranscript(r.repo, checkpoint.Stored{Chunks: hs}, "")
	if err != nil || int64(len(b)) != want.Size || sha256Hex(b) != want.SHA256 {
		return nil
	}
	return b
}

// readPrefix returns the first want.Size bytes of the file at path when
// their checksum is want's; it reads no more than that.
func readPrefix(path string, want transcriptBase) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() < want.Size {
		return nil
	}
	b := make([]byte, want.Size)
	if _, err := io.ReadFull(f, b); err != nil || sha256Hex(b) != want.SHA256 {
		return nil
	}
	return b
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
