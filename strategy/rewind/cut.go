package rewind

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/entirecli/entire/strategy/translog"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// A transcript whose stored copy is the redaction of a prefix of the live
// file (the agent only appended since) is restored by cutting the live
// file back to that prefix, not by writing the stored copy: nothing of the
// stored transcript is read, and the undo point keeps only the cut tail.
// Whether it is such a prefix is known from the session's local prefix
// records (translog), which name the stored transcript by its content
// hash and the raw prefix by its length and SHA-256; the live file's
// first bytes are hashed again before anything is cut.

// cutPlan is a transcript restored by a cut: the prefix record it cuts
// the live file back to, and the file as saveCut saw it (nil until the
// undo point is recorded), which the cut requires unchanged.
type cutPlan struct {
	translog.Prefix
	// checked is the file as it was when it was found to start with the
	// prefix; seen as the undo point saved it.
	checked, seen os.FileInfo
}

// cutFor returns the cut of the stored transcript whose content_hash.txt
// is contentHash when the live transcript at path starts with the raw
// prefix it stands for; nil otherwise (the file is then rewritten as
// before).
func (r *Rewinder) cutFor(sessionID, path, contentHash string) *cutPlan {
	if contentHash == "" || path == "" {
		return nil
	}
	pr, ok := translog.New(r.repo.CommonDir, sessionID).FindPrefix(contentHash, -1)
	if !ok {
		return nil
	}
	f, fi, err := openToCut(path, os.O_RDONLY)
	if err != nil {
		return nil
	}
	defer f.Close()
	if _, ok, err := translog.Match(f, pr, nil); err != nil || !ok {
		return nil
	}
	return &cutPlan{Prefix: pr, checked: fi}
}

// openToCut opens the live transcript at path with flag when it is a
// regular file itself, and returns it with its FileInfo. A symbolic link
// is refused: a cut through it would shorten the link's target, which an
// undo, writing the path, does not give back. The opened file must be
// the one looked at (not one swapped in meanwhile).
func openToCut(path string, flag int) (*os.File, os.FileInfo, error) {
	lfi, err := os.Lstat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("transcript %s: %w", path, err)
	}
	if !lfi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("transcript %s is not a regular file (%v)", path, lfi.Mode().Type())
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open transcript %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err == nil && !os.SameFile(lfi, fi) {
		err = errors.New("replaced while it was opened")
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("open transcript %s: %w", path, err)
	}
	return f, fi, nil
}

// errCutChanged is the error of a transcript that changed between the
// planning of a cut and the cut.
func errCutChanged(path string) error {
	return fmt.Errorf("transcript %s changed after the undo point saved it (is the agent still writing to it?): it was left as it is; the work tree was rewound", path)
}

// saveCut records, for an undo point, the transcript a cut shortens: its
// size and checksum, the prefix the cut keeps as the base, and the tail
// it removes as the point's data. It notes in t.cut the file it saw,
// which applyCut requires unchanged.
func saveCut(t Transcript, b *dataBuilder) (savedTranscript, error) {
	f, _, err := openToCut(t.Path, os.O_RDONLY)
	if err != nil {
		return savedTranscript{}, err
	}
	defer f.Close()
	var whole string
	var size int64
	var ok bool
	if fi, serr := f.Stat(); serr == nil && unchanged(t.cut.checked, fi) {
		// Found to start with the prefix when the rewind was planned and
		// not written since: only the tail is hashed, continuing the
		// prefix's hash.
		var all translog.Prefix
		if all, err = translog.Extend(f, &t.cut.Prefix, fi.Size()); err == nil {
			size, ok, whole = fi.Size(), true, all.SHA256
		}
	} else {
		size, ok, err = translog.Match(f, t.cut.Prefix, &whole)
	}
	if err != nil {
		return savedTranscript{}, fmt.Errorf("read transcript %s: %w", t.Path, err)
	}
	if !ok {
		return savedTranscript{}, fmt.Errorf("transcript %s changed while the rewind was planned; nothing was changed, run the rewind again", t.Path)
	}
	tail := make([]byte, size-t.cut.Offset)
	n, err := f.ReadAt(tail, t.cut.Offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return savedTranscript{}, fmt.Errorf("read transcript %s: %w", t.Path, err)
	}
	seen, err := f.Stat()
	if err != nil {
		return savedTranscript{}, fmt.Errorf("read transcript %s: %w", t.Path, err)
	}
	if n != len(tail) || seen.Size() != size {
		return savedTranscript{}, fmt.Errorf("transcript %s changed while the rewind was planned; nothing was changed, run the rewind again", t.Path)
	}
	t.cut.seen = seen
	s := savedTranscript{SessionID: t.SessionID, Path: t.Path, Size: size, SHA256: whole,
		Base: &transcriptBase{Size: t.cut.Offset, SHA256: t.cut.SHA256},
		Ops:  []deltaOp{{Copy: &span{Off: 0, Len: t.cut.Offset}}}}
	if len(tail) > 0 {
		s.Ops = append(s.Ops, deltaOp{Data: b.add(tail)})
	}
	return s, nil
}

// unchanged reports whether fi is the file was, not written since (same
// file, size and modification time).
func unchanged(was, fi os.FileInfo) bool {
	return was != nil && os.SameFile(was, fi) && was.Size() == fi.Size() && was.ModTime().Equal(fi.ModTime())
}

// applyCut cuts the live transcript back to the prefix, when it is still
// the file the undo point saved (else nothing is cut), and gives the
// session the stored transcript's state and the analysis cursor at the
// prefix's end, so that the next step stores and scans only what the
// agent appends.
func (r *Rewinder) applyCut(t Transcript) error {
	f, fi, err := openToCut(t.Path, os.O_WRONLY)
	if err != nil {
		return fmt.Errorf("write transcript of %s: %w", t.SessionID, err)
	}
	if !unchanged(t.cut.seen, fi) {
		f.Close()
		return errCutChanged(t.Path)
	}
	err = f.Truncate(t.cut.Offset)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write transcript of %s: %w", t.SessionID, err)
	}
	log := translog.New(r.repo.CommonDir, t.SessionID)
	if err := log.CutBatches(t.cut.Lines, t.cut.Offset); err != nil {
		r.printf("Warning: %v\n", err)
	}
	err = r.sessions.Update(t.SessionID, func(st *session.State, exists bool) error {
		if !exists {
			return errNoState
		}
		var ts checkpoint.TranscriptState
		st.ShadowTranscript = nil
		if json.Unmarshal(t.cut.State, &ts) == nil && ts.SourceOffset == t.cut.Offset && ts.Lines == t.cut.Lines {
			st.ShadowTranscript = &ts
		}
		st.TranscriptCursor = cutCursor(st.AgentType, t.Path, t.cut.Prefix)
		return nil
	})
	if err != nil && err != errNoState {
		return fmt.Errorf("update session %s: %w", t.SessionID, err)
	}
	return nil
}

// cutCursor returns the analysis position at the end of a transcript cut
// back to prefix p: its line count and offset come from the record, the
// last entry's ID from the lines just before the cut (read back from the
// end, more as needed); nil when the agent cannot tell positions.
func cutCursor(agentType, path string, p translog.Prefix) *session.TranscriptCursor {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	for window := int64(1 << 20); ; window *= 4 {
		start := max(0, p.Offset-window)
		buf := make([]byte, p.Offset-start)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return nil
		}
		if start > 0 {
			i := strings.IndexByte(string(buf), '\n')
			if i < 0 {
				continue
			}
			buf = buf[i+1:]
		}
		e, ok := agent.ForTranscript(agent.AgentType(agentType), buf).(agent.TranscriptEnder)
		if !ok {
			return nil
		}
		pos := e.EndPosition(buf)
		if pos.LastID != "" || start == 0 {
			return &session.TranscriptCursor{Entries: p.Lines, Offset: p.Offset, LastID: pos.LastID}
		}
	}
}

// stepCut returns the transcript of temporary point p restored by a cut
// of the live file (see cutFor); false when it cannot be (a task point,
// cut at its checkpoint UUID, or no matching prefix record).
func (r *Rewinder) stepCut(tree *object.Tree, p Point, st *session.State) (Transcript, bool) {
	if p.IsTaskCheckpoint || st == nil || st.TranscriptPath == "" {
		return Transcript{}, false
	}
	sub, err := tree.Tree(checkpoint.MetadataDirPrefix + p.SessionID)
	if err != nil {
		return Transcript{}, false
	}
	cut := r.cutFor(p.SessionID, st.TranscriptPath, checkpoint.ContentHashIn(r.repo, sub))
	if cut == nil {
		return Transcript{}, false
	}
	t := liveTranscript(p.SessionID, st.TranscriptPath, agent.AgentType(st.AgentType), st.FirstPrompt)
	t.cut = cut
	return t, true
}

// liveTranscript returns the Transcript of a session restored in its live
// file path (by a cut or a stream), with the resume hint of its agent and
// first prompt.
func liveTranscript(sessionID, path string, agentType agent.AgentType, firstPrompt string) Transcript {
	t := Transcript{SessionID: sessionID, Path: path, Prompt: firstLine(firstPrompt, 60)}
	if ag, err := agent.GetByAgentType(agentType); err == nil {
		t.ResumeCommand = ag.FormatResumeCommand(sessionID)
	}
	return t
}

// writeStream writes a stored JSONL transcript to t.Path one chunk at a
// time (mode 0600, atomically), never holding it whole, and gives the
// session the analysis cursor at its end.
func (r *Rewinder) writeStream(t Transcript) error {
	f, err := atomicfile.Create(filepath.Dir(t.Path), atomicfile.Options{Perm: 0o600})
	if err != nil {
		return fmt.Errorf("write transcript of %s: %w", t.SessionID, err)
	}
	defer f.Abort()
	w := bufio.NewWriterSize(f, 1<<20)
	var size int64
	lines := 0
	_, err = checkpoint.ForEachLine(r.repo, *t.stream, func(line []byte) error {
		size += int64(len(line)) + 1
		lines++
		if _, err := w.Write(line); err != nil {
			return err
		}
		return w.WriteByte('\n')
	})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Commit(t.Path)
	}
	if err != nil {
		return fmt.Errorf("write transcript of %s: %w", t.SessionID, err)
	}
	err = r.sessions.Update(t.SessionID, func(st *session.State, exists bool) error {
		if !exists {
			return errNoState
		}
		st.ShadowTranscript = nil
		st.TranscriptCursor = cutCursor(st.AgentType, t.Path, translog.Prefix{Lines: lines, Offset: size})
		return nil
	})
	if err != nil && err != errNoState {
		return fmt.Errorf("update session %s: %w", t.SessionID, err)
	}
	return nil
}

// streamable reports whether the stored transcript of a committed slot
// can be written back one chunk at a time: it is JSONL (its first chunk
// says so) and the target file is absent, so that an undo point records
// no more than its absence.
func (r *Rewinder) streamable(s checkpoint.Stored, path string) bool {
	if len(s.Chunks) == 0 || path == "" {
		return false
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	jsonl := false
	_, _ = checkpoint.ForEachLine(r.repo, checkpoint.Stored{Chunks: s.Chunks[:1]}, func([]byte) error {
		jsonl = true
		return errStop
	})
	return jsonl
}
