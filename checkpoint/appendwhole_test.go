package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"fmt"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
)

// The reference the JSONLAppender is checked against (requireSameStore):
// AppendJSONL as it was written for the whole new part at once, every
// new line in memory, packed by agent.PackJSONL (Entire 0.4.x's chunking)
// and long lines' values moved out in one pass.

// appendWhole stores lines after prev as AppendJSONL does, from the whole
// buffer.
func appendWhole(repo *gitrepo.Repo, prev *TranscriptState, lines []byte) (*TranscriptState, error) {
	blobs := prev.blobTree()
	if len(lines) > agent.MaxChunkSize {
		var err error
		if lines, blobs, err = externalizeLines(repo, blobs, lines); err != nil {
			return nil, err
		}
	}
	next, err := appendWholeLines(repo, prev, lines)
	if err != nil {
		return nil, err
	}
	next.Blobs = ""
	if !blobs.IsZero() {
		next.Blobs = blobs.String()
	}
	return next, nil
}

func appendWholeLines(repo *gitrepo.Repo, prev *TranscriptState, lines []byte) (*TranscriptState, error) {
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
		if err := next.hashChunk(sum, c, i == len(chunks)-1); err != nil {
			return nil, err
		}
	}
	if err := next.finishSum(sum); err != nil {
		return nil, err
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

// externalizeLong moves values out of the lines of data (complete,
// newline-terminated) that are longer than agent.MaxChunkSize, into s. It
// returns data itself when no line is that long, which costs nothing for
// data of at most that size.
func (s *blobStore) externalizeLong(data []byte) ([]byte, error) {
	if len(data) <= agent.MaxChunkSize {
		return data, nil
	}
	var out []byte
	done := 0 // data[:done] is in out (when out is not nil)
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		if end < 0 {
			end = len(data) - pos
		}
		line := data[pos : pos+end]
		if len(line) > agent.MaxChunkSize {
			short, err := externalizeLine(line, agent.MaxChunkSize, minExternal, s.store)
			if err != nil {
				return nil, err
			}
			out = append(append(out, data[done:pos]...), short...)
			done = pos + end
		}
		pos += end + 1
	}
	if out == nil {
		return data, nil
	}
	return append(out, data[done:]...), nil
}
