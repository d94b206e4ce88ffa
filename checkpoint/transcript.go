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
	"github.com/go-git/go-git/v5/plumbing/object"
)

// fingerprintLen is how many bytes before the stored offset are remembered
// to notice a transcript that was rewritten rather than appended to.
const fingerprintLen = 64

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
	// ContentHash is "sha256:<hex>" of the stored transcript: the chunks
	// joined by "\n", plus the final newline.
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
// line. The caller records the source position with SetSource.
func AppendJSONL(repo *gitrepo.Repo, prev *TranscriptState, lines []byte) (*TranscriptState, error) {
	blobs := prev.blobTree()
	if len(lines) > agent.MaxChunkSize {
		var err error
		if lines, blobs, err = externalizeLines(repo, blobs, lines); err != nil {
			return nil, err
		}
	}
	next, err := appendJSONL(repo, prev, lines)
	if err != nil {
		return nil, err
	}
	next.Blobs = ""
	if !blobs.IsZero() {
		next.Blobs = blobs.String()
	}
	return next, nil
}

// externalizeLines moves values out of the lines of data longer than
// agent.MaxChunkSize and returns the lines that remain with the BlobDir
// tree of a transcript whose tree was blobs before.
func externalizeLines(repo *gitrepo.Repo, blobs plumbing.Hash, data []byte) ([]byte, plumbing.Hash, error) {
	s := newBlobStore(repo)
	short, err := s.externalizeLong(data)
	if err != nil {
		return nil, blobs, fmt.Errorf("store long transcript lines: %w", err)
	}
	if len(s.entries) == 0 {
		return data, blobs, nil
	}
	if err := s.add(blobs); err != nil {
		return nil, blobs, err
	}
	t, err := s.tree()
	if err != nil {
		return nil, blobs, err
	}
	return short, t, nil
}

func appendJSONL(repo *gitrepo.Repo, prev *TranscriptState, lines []byte) (*TranscriptState, error) {
	next := &TranscriptState{}
	sum := sha256.New()
	var content []byte
	if prev != nil && len(prev.Chunks) > 0 {
		*next = *prev
		if prev.LastSize < mergeBelow {
			last, err := repo.ReadBlob(plumbing.NewHash(prev.Chunks[len(prev.Chunks)-1]))
			if err != nil {
				return nil, fmt.Errorf("read last transcript chunk: %w", err)
			}
			content = append(append(last, '\n'), lines...)
			next.Chunks = append([]string(nil), prev.Chunks[:len(prev.Chunks)-1]...)
			if err := restoreSum(sum, prev.PrefixSum); err != nil {
				return nil, err
			}
		} else {
			content = lines
			next.Chunks = append([]string(nil), prev.Chunks...)
			if err := restoreSum(sum, prev.FullSum); err != nil {
				return nil, err
			}
			sum.Write([]byte{'\n'})
		}
	} else {
		content = lines
	}
	next.Lines += bytes.Count(lines, []byte{'\n'})
	content = bytes.TrimSuffix(content, []byte{'\n'})
	if len(content) == 0 {
		return next, nil
	}
	chunks, err := agent.PackJSONL(content, agent.StoreChunkSize, agent.MaxChunkSize)
	if err != nil {
		return nil, fmt.Errorf("chunk transcript: %w", err)
	}
	for i, c := range chunks {
		h, err := repo.WriteBlob(c)
		if err != nil {
			return nil, fmt.Errorf("store transcript chunk: %w", err)
		}
		next.Chunks = append(next.Chunks, h.String())
		if i == len(chunks)-1 {
			if next.PrefixSum, err = saveSum(sum); err != nil {
				return nil, err
			}
			next.LastSize = int64(len(c))
			sum.Write(c)
			break
		}
		sum.Write(c)
		sum.Write([]byte{'\n'})
	}
	if next.FullSum, err = saveSum(sum); err != nil {
		return nil, err
	}
	sum.Write([]byte{'\n'})
	next.ContentHash = "sha256:" + hex.EncodeToString(sum.Sum(nil))
	return next, nil
}

// RewriteChunks passes every stored chunk of s through fn and returns the
// state of the result: a chunk fn leaves as it is keeps its blob, a changed
// one is written anew, and the content hash and resumable hash states are
// recomputed (every chunk is read). fn must keep the lines of a chunk (a
// redactor does), so Lines and the source position stay valid. A line
// whose values were moved out (see BlobDir) goes through fn whole, values
// included, and has them moved out again; values no line refers to any
// more are left out of the new BlobDir tree.
func RewriteChunks(repo *gitrepo.Repo, s *TranscriptState, fn func([]byte) []byte) (*TranscriptState, error) {
	if s == nil || len(s.Chunks) == 0 {
		return s, nil
	}
	rewrite := func(chunk []byte) ([]byte, error) { return fn(chunk), nil }
	var values *blobStore
	if t := s.blobTree(); !t.IsZero() {
		set, err := loadBlobSet(repo, t)
		if err != nil {
			return nil, err
		}
		values = newBlobStore(repo)
		rewrite = func(chunk []byte) ([]byte, error) { return rewriteLongLines(chunk, set, values, fn) }
	}
	next := *s
	next.Chunks = make([]string, len(s.Chunks))
	sum := sha256.New()
	for i, c := range s.Chunks {
		data, err := repo.ReadBlob(plumbing.NewHash(c))
		if err != nil {
			return nil, fmt.Errorf("read transcript chunk %d: %w", i, err)
		}
		nd, err := rewrite(data)
		if err != nil {
			return nil, fmt.Errorf("rewrite transcript chunk %d: %w", i, err)
		}
		next.Chunks[i] = c
		if !bytes.Equal(nd, data) {
			h, err := repo.WriteBlob(nd)
			if err != nil {
				return nil, fmt.Errorf("store transcript chunk %d: %w", i, err)
			}
			next.Chunks[i] = h.String()
		}
		if i == len(s.Chunks)-1 {
			if next.PrefixSum, err = saveSum(sum); err != nil {
				return nil, err
			}
			next.LastSize = int64(len(nd))
			sum.Write(nd)
			break
		}
		sum.Write(nd)
		sum.Write([]byte{'\n'})
	}
	if values != nil {
		t, err := values.tree()
		if err != nil {
			return nil, err
		}
		next.Blobs = ""
		if !t.IsZero() {
			next.Blobs = t.String()
		}
	}
	var err error
	if next.FullSum, err = saveSum(sum); err != nil {
		return nil, err
	}
	sum.Write([]byte{'\n'})
	next.ContentHash = "sha256:" + hex.EncodeToString(sum.Sum(nil))
	return &next, nil
}

// rewriteLongLines is fn for a chunk of a transcript with values moved
// out: each line whose markers name values of set goes through fn with
// its values put back, and has values moved out again (into values) until
// the chunk fits agent.MaxChunkSize again; other lines go through fn as
// they are.
func rewriteLongLines(chunk []byte, set *blobSet, values *blobStore, fn func([]byte) []byte) ([]byte, error) {
	if !bytes.Contains(chunk, markerStart) {
		return fn(chunk), nil
	}
	out := make([]byte, 0, len(chunk))
	for rest := chunk; ; {
		line, after, more := bytes.Cut(rest, []byte{'\n'})
		full, err := expandMarkers(line, set)
		if err != nil {
			return nil, err
		}
		if len(full) == len(line) && bytes.Equal(full, line) {
			out = append(out, fn(line)...)
		} else {
			room := max(agent.MaxChunkSize-(len(chunk)-len(line)), len(line))
			short, err := externalizeLine(fn(full), room, minExternal, values.store)
			if err != nil {
				return nil, err
			}
			out = append(out, short...)
		}
		if !more {
			return out, nil
		}
		out = append(out, '\n')
		rest = after
	}
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
	sum := sha256.Sum256(content)
	next.ContentHash = "sha256:" + hex.EncodeToString(sum[:])
	return next, nil
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
	// Read into a buffer of the size the file has, not one that grows:
	// a turn that wrote a line of many megabytes is held once.
	data = make([]byte, fi.Size()-from)
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, 0, false, fmt.Errorf("read transcript %s: %w", path, err)
	}
	data = data[:n]
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
// the given agent type (empty: detected from the content of the first
// chunk) and puts back the values moved out of its long lines. JSONL
// chunks are joined with newlines and the final newline is restored,
// which gives back the stored transcript byte for byte, long lines
// included.
func ReadTranscript(repo *gitrepo.Repo, s Stored, agentType agent.AgentType) ([]byte, error) {
	parts := make([][]byte, 0, len(s.Chunks))
	for _, h := range s.Chunks {
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
	if agentType != agent.AgentTypeGemini && len(out) > 0 && out[len(out)-1] != '\n' {
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
