package agent

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

const (
	// MaxChunkSize is the maximum size for a single transcript chunk.
	// GitHub has a 100MB limit per blob, so we use 50MB to be safe. Content
	// at or below this size is stored as one blob.
	MaxChunkSize = 50 * 1024 * 1024 // 50MB

	// StoreChunkSize is the chunk size entire uses when it stores
	// transcripts: 4 MiB. Greedy packing from the start is prefix-stable,
	// so when a transcript only grows, every chunk but the last stays
	// byte-identical and is deduplicated by git.
	StoreChunkSize = 4 << 20

	// ChunkSuffix is the format for chunk file suffixes (e.g., ".001",
	// ".002").
	ChunkSuffix = ".%03d"
)

// ChunkFileName returns the filename for a chunk at the given index. Index 0
// returns the base filename, index 1+ returns it with the chunk suffix
// (full.jsonl, full.jsonl.001, ...).
func ChunkFileName(baseName string, index int) string {
	if index <= 0 {
		return baseName
	}
	return baseName + fmt.Sprintf(ChunkSuffix, index)
}

// ParseChunkIndex extracts the chunk index from a filename. Returns 0 for the
// base file (no suffix), or the chunk number for suffixed files. Returns -1 if
// the filename doesn't match the expected pattern (base name, a dot, at least
// three decimal digits, a positive number).
func ParseChunkIndex(filename, baseName string) int {
	if filename == baseName {
		return 0
	}
	rest, ok := strings.CutPrefix(filename, baseName+".")
	if !ok || len(rest) < 3 {
		return -1
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return -1
		}
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 {
		return -1
	}
	return n
}

// SortChunkFiles sorts chunk filenames in order (base file first, then
// numbered chunks by number). Names that are not chunks of baseName are
// dropped. The input slice is not modified.
func SortChunkFiles(files []string, baseName string) []string {
	out := make([]string, 0, len(files))
	for _, f := range files {
		if ParseChunkIndex(f, baseName) >= 0 {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return ParseChunkIndex(out[i], baseName) < ParseChunkIndex(out[j], baseName)
	})
	return out
}

// ChunkJSONL splits JSONL content at line boundaries. Lines are packed
// greedily from the start while current+len(line)+1 <= maxSize; each chunk but
// the last is stored without its final newline (the last keeps the content's
// own ending), and ReassembleJSONL joins chunks with "\n", which gives back
// content exactly. Content of at most maxSize bytes is returned as one chunk, unchanged.
// A single line longer than maxSize is an error wrapping ErrLineTooLarge
// (lines are never split). maxSize <= 0 means MaxChunkSize.
//
// Because packing is greedy from the start, chunking is prefix-stable: if b
// extends a by whole lines (a ends with "\n", or a's last line is unchanged),
// every chunk of a but the last is also a chunk of b, byte for byte.
func ChunkJSONL(content []byte, maxSize int) ([][]byte, error) {
	if maxSize <= 0 {
		maxSize = MaxChunkSize
	}
	return PackJSONL(content, maxSize, maxSize)
}

// PackJSONL is ChunkJSONL with a chunk target and a line limit: lines are
// packed into chunks of at most target bytes, and a line longer than
// target but of at most limit bytes becomes a chunk of its own (the line
// alone, without its newline), so that one long line neither fails the
// store nor changes how the lines around it are packed. Joining the chunks
// with "\n" still gives back content exactly, which is how Entire 0.4.x
// reads them. A line longer than limit is an error wrapping ErrLineTooLarge.
// The store packs at StoreChunkSize with the limit MaxChunkSize. limit is
// at least target; target <= 0 means MaxChunkSize. Packing stays
// prefix-stable.
func PackJSONL(content []byte, target, limit int) ([][]byte, error) {
	if target <= 0 {
		target = MaxChunkSize
	}
	limit = max(limit, target)
	if len(content) <= target {
		return [][]byte{content}, nil
	}
	var chunks [][]byte
	start, size := 0, 0 // current chunk is content[start:start+size] incl. newlines
	pos, lineNo := 0, 0
	for pos < len(content) {
		lineNo++
		end := bytes.IndexByte(content[pos:], '\n')
		lineLen := len(content) - pos
		if end >= 0 {
			lineLen = end
		}
		if lineLen > limit {
			return nil, fmt.Errorf("chunk jsonl: line %d is %d bytes, chunk limit %d: %w", lineNo, lineLen, limit, ErrLineTooLarge)
		}
		if size > 0 && size+lineLen+1 > target {
			chunks = append(chunks, trimNewline(content[start:start+size]))
			start, size = pos, 0
		}
		size += lineLen + 1
		pos += lineLen + 1
	}
	if last := content[start:]; len(last) > target && last[len(last)-1] == '\n' {
		// A last line over the target with its newline: the line is a
		// chunk of its own and the newline goes into an empty final
		// chunk (one line of exactly target bytes included).
		chunks = append(chunks, last[:len(last)-1], last[len(last):])
	} else if len(last) > 0 {
		// The last chunk keeps a trailing newline, so that joining with "\n"
		// gives back content exactly.
		chunks = append(chunks, last)
	}
	return chunks, nil
}

func trimNewline(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return b[:len(b)-1]
	}
	return b
}

// ReassembleJSONL concatenates JSONL chunks with newlines. For a single chunk
// it returns the chunk itself.
func ReassembleJSONL(chunks [][]byte) []byte {
	if len(chunks) == 1 {
		return chunks[0]
	}
	return bytes.Join(chunks, []byte("\n"))
}

// ChunkTranscript splits a transcript into chunks of at most MaxChunkSize
// using the appropriate agent. If agentType is empty or the agent doesn't
// implement TranscriptChunker, it falls back to JSONL (line-based) chunking.
func ChunkTranscript(content []byte, agentType AgentType) ([][]byte, error) {
	return ChunkTranscriptSize(content, agentType, MaxChunkSize)
}

// ChunkTranscriptSize is ChunkTranscript with an explicit chunk size (e.g.
// StoreChunkSize).
func ChunkTranscriptSize(content []byte, agentType AgentType, maxSize int) ([][]byte, error) {
	if c := chunkerFor(agentType); c != nil {
		chunks, err := c.ChunkTranscript(content, maxSize)
		if err != nil {
			return nil, fmt.Errorf("chunk %s transcript: %w", agentType, err)
		}
		return chunks, nil
	}
	return ChunkJSONL(content, maxSize)
}

// ReassembleTranscript combines chunks back into a single transcript. If
// agentType is empty or the agent doesn't implement TranscriptChunker, falls
// back to JSONL (line-based) reassembly.
func ReassembleTranscript(chunks [][]byte, agentType AgentType) ([]byte, error) {
	if c := chunkerFor(agentType); c != nil {
		out, err := c.ReassembleTranscript(chunks)
		if err != nil {
			return nil, fmt.Errorf("reassemble %s transcript: %w", agentType, err)
		}
		return out, nil
	}
	return ReassembleJSONL(chunks), nil
}

func chunkerFor(agentType AgentType) TranscriptChunker {
	if agentType == "" {
		return nil
	}
	a, err := GetByAgentType(agentType)
	if err != nil {
		return nil
	}
	c, _ := a.(TranscriptChunker)
	return c
}
