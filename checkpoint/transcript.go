package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// fingerprintLen is how many bytes before the stored offset are remembered
// to notice a transcript that was rewritten rather than appended to.
const fingerprintLen = 64

// TranscriptState is what the store remembers about a transcript it wrote,
// so that writing the same transcript after it grew costs only the new part:
// every chunk but the last is kept as is, and the content hash continues
// from a saved SHA-256 state. The zero value (or nil) means nothing stored.
// It is plain JSON so that callers can keep it in their session state.
type TranscriptState struct {
	// Chunks are the blob hashes of full.jsonl, full.jsonl.001, ...
	Chunks []string `json:"chunks"`
	// LastSize is the size of the last chunk in bytes.
	LastSize int64 `json:"last_size"`
	// PrefixSum is the marshalled SHA-256 state over every chunk but the
	// last, each followed by the "\n" that joins it to the next.
	PrefixSum []byte `json:"prefix_sum,omitempty"`
	// Lines is the number of lines stored.
	Lines int `json:"lines"`
	// ContentHash is "sha256:<hex>" of the stored transcript (the chunks
	// joined by "\n", which gives back the transcript byte for byte).
	ContentHash string `json:"content_hash"`
	// SourceOffset is the byte offset in the source file (the live,
	// unredacted transcript) up to which lines are stored.
	SourceOffset int64 `json:"source_offset"`
	// SourceTail is the hex SHA-256 of the source bytes just before
	// SourceOffset (up to 64), to tell an append from a rewrite.
	SourceTail string `json:"source_tail,omitempty"`
}

// ChunkHashes returns the chunk blob hashes in order.
func (s *TranscriptState) ChunkHashes() []plumbing.Hash {
	if s == nil {
		return nil
	}
	out := make([]plumbing.Hash, len(s.Chunks))
	for i, c := range s.Chunks {
		out[i] = plumbing.NewHash(c)
	}
	return out
}

// TreeChanges returns the tree entries that store the transcript and its
// content hash under dir ("" for the tree root): full.jsonl, full.jsonl.001,
// ..., content_hash.txt. It writes the content hash blob.
func (s *TranscriptState) TreeChanges(repo *gitrepo.Repo, dir string) ([]gitrepo.Change, error) {
	if s == nil || len(s.Chunks) == 0 {
		return nil, nil
	}
	prefix := dir
	if prefix != "" {
		prefix += "/"
	}
	var changes []gitrepo.Change
	for i, h := range s.ChunkHashes() {
		changes = append(changes, gitrepo.Change{Path: prefix + agent.ChunkFileName(TranscriptFile, i), Mode: filemode.Regular, Hash: h})
	}
	hh, err := repo.WriteBlob([]byte(s.ContentHash))
	if err != nil {
		return nil, err
	}
	changes = append(changes, gitrepo.Change{Path: prefix + ContentHashFile, Mode: filemode.Regular, Hash: hh})
	return changes, nil
}

// AppendJSONL stores lines (complete, newline-terminated JSONL lines that
// were already redacted) after the transcript described by prev (nil for a
// new transcript) and returns the new state. Only the last stored chunk is
// read and rewritten; earlier chunks keep their blobs, so a transcript that
// only grows costs what it grew by. The caller sets SourceOffset and
// SourceTail (see ReadSource).
func AppendJSONL(repo *gitrepo.Repo, prev *TranscriptState, lines []byte) (*TranscriptState, error) {
	next := &TranscriptState{}
	var tail []byte
	sum := sha256.New()
	if prev != nil && len(prev.Chunks) > 0 {
		*next = *prev
		next.Chunks = append([]string(nil), prev.Chunks[:len(prev.Chunks)-1]...)
		if len(prev.PrefixSum) > 0 {
			if err := sum.(encoding.BinaryUnmarshaler).UnmarshalBinary(prev.PrefixSum); err != nil {
				return nil, fmt.Errorf("restore transcript hash state: %w", err)
			}
		}
		last, err := repo.ReadBlob(plumbing.NewHash(prev.Chunks[len(prev.Chunks)-1]))
		if err != nil {
			return nil, fmt.Errorf("read last transcript chunk: %w", err)
		}
		tail = last
		if len(tail) > 0 && tail[len(tail)-1] != '\n' {
			tail = append(tail, '\n')
		}
	}
	next.Lines += bytes.Count(lines, []byte{'\n'})
	if len(lines) > 0 && lines[len(lines)-1] != '\n' {
		next.Lines++
	}
	chunks, err := agent.ChunkJSONL(append(tail, lines...), agent.StoreChunkSize)
	if err != nil {
		return nil, fmt.Errorf("chunk transcript: %w", err)
	}
	if err := next.storeChunks(repo, sum, chunks); err != nil {
		return nil, err
	}
	return next, nil
}

// WriteWhole stores content as a whole transcript of the given agent type
// (split by the agent's own chunker, e.g. Gemini's JSON by messages) and
// returns its state. Chunks git already has are not written again, so a
// document that only grew still shares its leading chunks with the previous
// checkpoint.
func WriteWhole(repo *gitrepo.Repo, content []byte, agentType agent.AgentType) (*TranscriptState, error) {
	chunks, err := agent.ChunkTranscriptSize(content, agentType, agent.StoreChunkSize)
	if err != nil {
		return nil, fmt.Errorf("chunk transcript: %w", err)
	}
	next := &TranscriptState{Lines: bytes.Count(content, []byte{'\n'})}
	if err := next.storeChunks(repo, sha256.New(), chunks); err != nil {
		return nil, err
	}
	return next, nil
}

// storeChunks writes chunks after s.Chunks, extending sum (the hash state
// over the chunks already in s) and finishing ContentHash.
func (s *TranscriptState) storeChunks(repo *gitrepo.Repo, sum hash.Hash, chunks [][]byte) error {
	for i, c := range chunks {
		h, err := repo.WriteBlob(c)
		if err != nil {
			return fmt.Errorf("store transcript chunk: %w", err)
		}
		s.Chunks = append(s.Chunks, h.String())
		if i == len(chunks)-1 {
			state, err := sum.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				return fmt.Errorf("save transcript hash state: %w", err)
			}
			s.PrefixSum = state
			s.LastSize = int64(len(c))
			sum.Write(c)
			break
		}
		sum.Write(c)
		sum.Write([]byte{'\n'})
	}
	if len(s.Chunks) == 0 {
		s.PrefixSum, s.LastSize = nil, 0
	}
	s.ContentHash = "sha256:" + hex.EncodeToString(sum.Sum(nil))
	return nil
}

// ReadSource returns the complete lines of the source transcript at path
// that come after what st has stored, and the offset just past them. A
// partial last line (the agent is still writing it) is left for later. When
// the file no longer starts with what st stored (it was truncated or
// rewritten, as a rewind does), restart is true and data holds every
// complete line from the start. A nil st reads from the start.
func ReadSource(path string, st *TranscriptState) (data []byte, end int64, restart bool, err error) {
	f, err := os.Open(path)
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
	data, err = io.ReadAll(io.LimitReader(f, fi.Size()-from))
	if err != nil {
		return nil, 0, false, fmt.Errorf("read transcript %s: %w", path, err)
	}
	cut := bytes.LastIndexByte(data, '\n') + 1
	return data[:cut], from + int64(cut), restart, nil
}

// SetSource records that the source transcript at path is stored up to end.
func (s *TranscriptState) SetSource(path string, end int64) error {
	f, err := os.Open(path)
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

// ReadTranscript reassembles a stored transcript from its chunk blobs for
// the given agent type (empty: detected from the content of the first
// chunk). JSONL chunks are joined with newlines, which restores the stored
// transcript byte for byte.
func ReadTranscript(repo *gitrepo.Repo, chunks []plumbing.Hash, agentType agent.AgentType) ([]byte, error) {
	parts := make([][]byte, 0, len(chunks))
	for _, h := range chunks {
		b, err := repo.ReadBlob(h)
		if err != nil {
			return nil, fmt.Errorf("read transcript chunk: %w", err)
		}
		parts = append(parts, b)
	}
	if agentType == "" && len(parts) > 0 {
		agentType = agent.DetectAgentTypeFromContent(parts[0])
	}
	out, err := agent.ReassembleTranscript(parts, agentType)
	if err != nil {
		return nil, fmt.Errorf("reassemble transcript: %w", err)
	}
	return out, nil
}
