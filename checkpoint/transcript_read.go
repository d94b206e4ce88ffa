package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// fingerprintLen is how many bytes before the stored offset are remembered
// to notice a transcript that was rewritten rather than appended to.
const fingerprintLen = 64

// maxSourceRead bounds what one ReadSource call reads, whatever the size of
// the file: a transcript that grew by more is stored over several calls.
// It is agent.MaxLine, so that any line a scan analyses is stored whole.
const maxSourceRead = agent.MaxLine

// maxLineSkip bounds how far past maxSourceRead ReadSource looks for the
// end of an oversized line before it takes the file for something else.
const maxLineSkip = 1 << 30

// OmittedLine is the line that stands, in a stored transcript, for a
// source line longer than agent.MaxLine, which is neither held in memory
// nor stored: {"type":"entire-omitted-line","bytes":N}. Scans skip such
// lines too, so positions in the stored and the source transcript agree.
func OmittedLine(n int64) []byte {
	return fmt.Appendf(nil, `{"type":"entire-omitted-line","bytes":%d}`+"\n", n)
}

// ReadSource returns the complete lines of the source transcript at path
// that come after what st has stored, at most 64 MiB of them, and the
// offset just past them. A partial last line (the agent is still writing
// it) is left for later. The file is opened with agent.OpenTranscript (only
// regular files). A line longer than 64 MiB comes back as an OmittedLine
// (its end is searched for in bounded memory; one that has no end within
// 1 GiB more is refused with agent.ErrNotTranscript). When the file no
// longer starts with what st stored (it was truncated or rewritten, as a
// rewind does), restart is true and data holds the complete lines from the
// start. A nil st reads from the start.
func ReadSource(path string, st *TranscriptState) (data []byte, end int64, restart bool, err error) {
	f, err := agent.OpenTranscript(path)
	if err != nil {
		return nil, 0, false, fmt.Errorf("open transcript %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, false, fmt.Errorf("stat transcript %s: %w", path, err)
	}
	from := int64(0)
	if st != nil && st.SourceOffset > 0 {
		from = st.SourceOffset
		if fi.Size() < from || sourceTail(f, from) != st.SourceTail {
			from, restart = 0, true
		}
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, 0, false, fmt.Errorf("seek transcript %s: %w", path, err)
	}
	// Read into a buffer of the size needed, not one that grows: a turn
	// that wrote a line of many megabytes is held once.
	data = make([]byte, min(fi.Size()-from, maxSourceRead))
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, 0, false, fmt.Errorf("read transcript %s: %w", path, err)
	}
	data = data[:n]
	cut := bytes.LastIndexByte(data, '\n') + 1
	if cut == 0 && n == maxSourceRead {
		return omitLongLine(f, path, from, int64(n), restart)
	}
	return data[:cut], from + int64(cut), restart, nil
}

// omitLongLine finds the end of the line starting at from, of which read
// bytes were read without a newline, and returns the OmittedLine standing
// for it; nothing when it has no end yet.
func omitLongLine(f *os.File, path string, from, read int64, restart bool) ([]byte, int64, bool, error) {
	buf := make([]byte, 1<<20)
	for pos := from + read; pos < from+maxSourceRead+maxLineSkip; {
		n, err := f.ReadAt(buf, pos)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			end := pos + int64(i) + 1
			return OmittedLine(end - from - 1), end, restart, nil
		}
		pos += int64(n)
		if errors.Is(err, io.EOF) {
			return nil, from, restart, nil // the line is still being written
		}
		if err != nil {
			return nil, 0, false, fmt.Errorf("read transcript %s: %w", path, err)
		}
	}
	return nil, 0, false, fmt.Errorf("read transcript %s: %w: a line longer than %d MiB", path, agent.ErrNotTranscript, (maxSourceRead+maxLineSkip)>>20)
}

// SetSource records that the source transcript at path is stored up to end.
func (s *TranscriptState) SetSource(path string, end int64) error {
	f, err := agent.OpenTranscript(path)
	if err != nil {
		return fmt.Errorf("open transcript %s: %w", path, err)
	}
	defer f.Close()
	s.SourceOffset = end
	s.SourceTail = sourceTail(f, end)
	return nil
}

// sourceTail fingerprints the bytes just before offset.
func sourceTail(f *os.File, offset int64) string {
	start := max(0, offset-fingerprintLen)
	buf := make([]byte, offset-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	h := sha256.Sum256(buf)
	return hex.EncodeToString(h[:8])
}

// Stored names a stored transcript: its chunk blobs in order and the
// BlobDir tree of the values moved out of its long lines (ZeroHash: none).
// The zero value stores nothing.
type Stored struct {
	Chunks []plumbing.Hash
	Blobs  plumbing.Hash
}

// StoredIn returns the transcript stored in the tree dir (a session slot
// of a committed checkpoint, or a session's metadata directory on a
// shadow branch): full.jsonl, full.jsonl.001, ... in order, else the
// legacy full.log, and BlobDir. It is zero when dir stores none.
func StoredIn(dir *object.Tree) Stored {
	var names []string
	byName := map[string]plumbing.Hash{}
	var s Stored
	for _, e := range dir.Entries {
		switch {
		case e.Mode.IsFile() && agent.ParseChunkIndex(e.Name, TranscriptFile) >= 0:
			names = append(names, e.Name)
			byName[e.Name] = e.Hash
		case e.Name == BlobDir && e.Mode == filemode.Dir:
			s.Blobs = e.Hash
		}
	}
	for _, n := range agent.SortChunkFiles(names, TranscriptFile) {
		s.Chunks = append(s.Chunks, byName[n])
	}
	if len(s.Chunks) == 0 {
		if e, err := dir.FindEntry(LegacyLogFile); err == nil && e.Mode.IsFile() {
			s.Chunks = []plumbing.Hash{e.Hash}
		}
	}
	return s
}

// ReadTranscript reassembles a stored transcript from its chunk blobs for
// the given agent type (empty: the agent that recognises the first chunk,
// see agent.Recognize) and puts back the values moved out of its long
// lines. The agent tells the format from the first chunk (see
// agent.FormatOf): JSONL chunks are joined with newlines and the final
// newline is restored, which gives back the stored transcript byte for
// byte, long lines included; a JSON document is joined by the agent's
// chunker and read back as stored. A transcript over MaxReadTranscript is an error, found before
// it is read.
func ReadTranscript(repo *gitrepo.Repo, s Stored, agentType agent.AgentType) ([]byte, error) {
	total := 0
	for _, h := range s.Chunks {
		n, err := repo.ObjectSize(h)
		if err != nil {
			return nil, fmt.Errorf("read transcript chunk: %w", err)
		}
		if total += int(n) + 1; total > MaxReadTranscript {
			return nil, fmt.Errorf("read transcript: %w", errTooLarge(total))
		}
	}
	parts := make([][]byte, 0, len(s.Chunks))
	for _, h := range s.Chunks {
		b, err := repo.ReadBlob(h)
		if err != nil {
			return nil, fmt.Errorf("read transcript chunk: %w", err)
		}
		parts = append(parts, b)
	}
	var a agent.Agent
	switch {
	case agentType != "":
		a, _ = agent.GetByAgentType(agentType)
	case len(parts) > 0:
		a = agent.Recognize(parts[0])
	}
	var typ agent.AgentType
	if a != nil {
		typ = a.Type()
	}
	out, err := agent.ReassembleTranscript(parts, typ)
	if err != nil {
		return nil, fmt.Errorf("reassemble transcript: %w", err)
	}
	if len(parts) > 0 && agent.FormatOf(a, parts[0]) == agent.TranscriptJSONL && len(out) > 0 && out[len(out)-1] != '\n' {
		// JSONL chunks are stored without the final newline.
		out = append(out, '\n')
	}
	blobs, err := loadBlobSet(repo, s.Blobs)
	if err != nil || blobs == nil {
		return out, err
	}
	if out, err = expandMarkers(out, blobs); err != nil {
		return nil, fmt.Errorf("expand transcript: %w", err)
	}
	return out, nil
}
