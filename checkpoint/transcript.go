package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// mergeBelow is the size under which the last stored chunk is merged with
// newly appended lines instead of being left as it is: it keeps the number
// of chunks down while bounding what a step rewrites.
const mergeBelow = 256 << 10

// TranscriptState is what the store remembers about a JSONL transcript it
// wrote, so that writing the same transcript after it grew costs only the
// new part: stored chunks are never rewritten (but for a last chunk smaller
// than 256 KB, merged with the new lines), and the content hash continues
// from a saved SHA-256 state. Chunks are stored without a trailing newline
// and joined with "\n", as Entire 0.4.x stores them. The zero value (or
// nil) means nothing stored. It is plain JSON so that callers can keep it in
// their session state.
type TranscriptState struct {
	// Chunks are the blob hashes of full.jsonl, full.jsonl.001, ...
	Chunks []string `json:"chunks"`
	// LastSize is the size of the last chunk in bytes.
	LastSize int64 `json:"last_size"`
	// PrefixSum is the marshalled SHA-256 state over every chunk but the
	// last, each followed by the "\n" that joins it to the next.
	PrefixSum []byte `json:"prefix_sum,omitempty"`
	// FullSum is the marshalled SHA-256 state over all chunks joined.
	FullSum []byte `json:"full_sum,omitempty"`
	// Lines is the number of lines stored.
	Lines int `json:"lines"`
	// ContentHash is "sha256:<hex>" of exactly the stored transcript:
	// the chunks joined by "\n" (for a JSONL transcript, whose chunks keep
	// no final newline, the source without its last newline), which is
	// what a 0.4.x reader checks it against.
	ContentHash string `json:"content_hash"`
	// SourceOffset is the byte offset in the source file (the live,
	// unredacted transcript) up to which lines are stored.
	SourceOffset int64 `json:"source_offset"`
	// SourceTail is a hash of the source bytes just before SourceOffset (up
	// to 64), to tell an append from a rewrite.
	SourceTail string `json:"source_tail,omitempty"`
	// Rules identifies the redaction rules every stored chunk went through
	// (the redactor's fingerprint); "" when unknown. A chunk stored under
	// other rules keeps the older value, so that the data is redacted again
	// before it leaves (RewriteChunks).
	Rules string `json:"rules,omitempty"`
	// Blobs is the hash of the BlobDir tree that holds the values moved
	// out of lines longer than agent.MaxChunkSize (see BlobDir); "" when
	// no line was that long.
	Blobs string `json:"blobs,omitempty"`
}

// Stored returns where the transcript is stored, for ReadTranscript.
func (s *TranscriptState) Stored() Stored {
	if s == nil {
		return Stored{}
	}
	return Stored{Chunks: s.ChunkHashes(), Blobs: s.blobTree()}
}

func (s *TranscriptState) blobTree() plumbing.Hash {
	if s == nil || s.Blobs == "" {
		return plumbing.ZeroHash
	}
	return plumbing.NewHash(s.Blobs)
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
// ..., content_hash.txt, and the BlobDir tree when the transcript has one
// (it keeps the values of long lines reachable wherever the chunks are:
// on the shadow branch, on the metadata branch and in whatever is pushed).
// It writes the content hash blob.
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
	if t := s.blobTree(); !t.IsZero() {
		changes = append(changes, gitrepo.Change{Path: prefix + BlobDir, Mode: filemode.Dir, Hash: t})
	}
	return changes, nil
}

// AppendJSONL stores lines (complete, newline-terminated JSONL lines that
// were already redacted) after the transcript described by prev (nil for a
// new transcript) and returns the new state. Stored chunks are kept as they
// are (a last chunk under 256 KB is merged with the new lines), so a
// transcript that only grows costs what it grew by. Lines are packed into
// chunks of agent.StoreChunkSize; a longer line is a chunk of its own, and
// a line longer than agent.MaxChunkSize has values moved out into the
// BlobDir tree (see BlobDir), which costs nothing when lines holds no such
// line. The caller records the source position with SetSource. It is a
// JSONLAppender given lines in one Write.
func AppendJSONL(repo *gitrepo.Repo, prev *TranscriptState, lines []byte) (*TranscriptState, error) {
	a, err := NewJSONLAppender(repo, prev)
	if err != nil {
		return nil, err
	}
	if err := a.Write(lines); err != nil {
		return nil, err
	}
	return a.Close()
}

// hashChunk adds chunk c to sum, the running hash of the stored chunks
// joined by "\n". Before the last chunk it saves sum as PrefixSum and
// records the chunk's size as LastSize.
func (s *TranscriptState) hashChunk(sum hash.Hash, c []byte, last bool) error {
	if !last {
		sum.Write(c)
		sum.Write([]byte{'\n'})
		return nil
	}
	var err error
	if s.PrefixSum, err = saveSum(sum); err != nil {
		return err
	}
	s.LastSize = int64(len(c))
	sum.Write(c)
	return nil
}

// finishSum records sum, over every chunk, as FullSum and ContentHash.
func (s *TranscriptState) finishSum(sum hash.Hash) error {
	var err error
	if s.FullSum, err = saveSum(sum); err != nil {
		return err
	}
	s.ContentHash = "sha256:" + hex.EncodeToString(sum.Sum(nil))
	return nil
}

func saveSum(h hash.Hash) ([]byte, error) {
	b, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("save transcript hash state: %w", err)
	}
	return b, nil
}

func restoreSum(h hash.Hash, state []byte) error {
	if len(state) == 0 {
		return nil
	}
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
		return fmt.Errorf("restore transcript hash state: %w", err)
	}
	return nil
}

// WriteWhole stores content as a whole transcript of the given agent type
// (split by the agent's own chunker, e.g. Gemini's JSON by messages) and
// returns its state. Chunks git already has are not written again, so a
// document that only grew still shares its leading chunks with the previous
// checkpoint. A message over the 4 MB target makes the document chunk at
// SPEC 4.5's limit (agent.MaxChunkSize) instead; for a message over that,
// the document's largest string values are moved out into the BlobDir
// tree (see BlobDir) until it chunks.
func WriteWhole(repo *gitrepo.Repo, content []byte, agentType agent.AgentType) (*TranscriptState, error) {
	chunks, err := agent.ChunkTranscriptSize(content, agentType, agent.StoreChunkSize)
	if errors.Is(err, agent.ErrLineTooLarge) {
		chunks, err = agent.ChunkTranscriptSize(content, agentType, agent.MaxChunkSize)
	}
	var blobs *blobStore
	for errors.Is(err, agent.ErrLineTooLarge) {
		if blobs == nil {
			blobs = newBlobStore(repo)
		}
		smaller, moved, xerr := externalizeLargest(content, minExternal, blobs.store)
		if xerr != nil {
			return nil, fmt.Errorf("store long transcript values: %w", xerr)
		}
		if !moved {
			break
		}
		content = smaller
		chunks, err = agent.ChunkTranscriptSize(content, agentType, agent.MaxChunkSize)
	}
	if err != nil {
		return nil, fmt.Errorf("chunk transcript: %w", err)
	}
	next := &TranscriptState{Lines: bytes.Count(content, []byte{'\n'})}
	if blobs != nil {
		t, err := blobs.tree()
		if err != nil {
			return nil, err
		}
		if !t.IsZero() {
			next.Blobs = t.String()
		}
	}
	for _, c := range chunks {
		h, err := repo.WriteBlob(c)
		if err != nil {
			return nil, fmt.Errorf("store transcript chunk: %w", err)
		}
		next.Chunks = append(next.Chunks, h.String())
		next.LastSize = int64(len(c))
	}
	// The hash of the stored bytes: the one chunk when there is one (a
	// chunker may write the document otherwise than it came); the
	// document as it came when it takes several (SPEC 4.5: the whole
	// redacted transcript), which no join of standalone chunks gives back.
	hashed := content
	if len(chunks) == 1 {
		hashed = chunks[0]
	}
	sum := sha256.Sum256(hashed)
	next.ContentHash = "sha256:" + hex.EncodeToString(sum[:])
	return next, nil
}
