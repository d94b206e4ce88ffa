package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"hash"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
)

// JSONLAppender is AppendJSONL fed in pieces: the redacted lines to store
// come in any number of Write calls, each of complete lines, and Close
// returns the state AppendJSONL would have returned for all of them at
// once: the same chunks, byte for byte, the same hashes and the same
// BlobDir tree. It holds at most the chunk it is packing (agent.StoreChunkSize,
// or one line up to agent.MaxChunkSize) besides what the caller passes in,
// so a transcript that grew by many megabytes is stored in bounded memory.
// A Write's bytes are kept (not copied) until the chunk they are part of
// is written: the caller must not change them after the call.
// A JSONLAppender is not safe for concurrent use.
type JSONLAppender struct {
	repo   *gitrepo.Repo
	next   *TranscriptState
	sum    hash.Hash
	blobs  *blobStore    // values moved out of long lines; nil while none
	prev   plumbing.Hash // the BlobDir tree of the stored transcript
	cur    [][]byte      // the lines of the chunk being packed, each with its newline
	size   int           // bytes in cur
	empty  bool          // an empty line is pending: it is the content's end unless a line follows
	hashed bool          // a chunk was hashed: the next one is joined with "\n"
	lines  int           // lines written
	// head holds the lines while they add up to at most
	// agent.StoreChunkSize+1 bytes (total): content that small is one
	// chunk, which greedy packing would split when it is exactly one
	// byte over.
	head   [][]byte
	total  int
	closed bool
	err    error
	buf    []byte // reused to join the lines of a chunk
}

// NewJSONLAppender starts appending to the transcript described by prev
// (nil for a new transcript), as AppendJSONL does: a last stored chunk
// under 256 KB is read back to be merged with the new lines.
func NewJSONLAppender(repo *gitrepo.Repo, prev *TranscriptState) (*JSONLAppender, error) {
	a := &JSONLAppender{repo: repo, next: &TranscriptState{}, sum: sha256.New(), prev: prev.blobTree()}
	if prev == nil || len(prev.Chunks) == 0 {
		// As AppendJSONL: a state that stores no chunk counts nothing.
		return a, nil
	}
	*a.next = *prev
	if prev.LastSize < mergeBelow {
		last, err := repo.ReadBlob(plumbing.NewHash(prev.Chunks[len(prev.Chunks)-1]))
		if err != nil {
			return nil, fmt.Errorf("read last transcript chunk: %w", err)
		}
		a.next.Chunks = append([]string(nil), prev.Chunks[:len(prev.Chunks)-1]...)
		if err := restoreSum(a.sum, prev.PrefixSum); err != nil {
			return nil, err
		}
		// The merged content is last + "\n" + lines: the last chunk's
		// lines come first, as lines of their own.
		if err := a.add(append(last, '\n')); err != nil {
			return nil, err
		}
		return a, nil
	}
	a.next.Chunks = append([]string(nil), prev.Chunks...)
	if err := restoreSum(a.sum, prev.FullSum); err != nil {
		return nil, err
	}
	a.hashed = true
	return a, nil
}

// Write stores lines, complete newline-terminated JSONL lines that were
// already redacted, after those written before. A line longer than
// agent.MaxChunkSize has values moved out into the BlobDir tree, as
// AppendJSONL does.
func (a *JSONLAppender) Write(lines []byte) error {
	if a.err != nil {
		return a.err
	}
	if a.closed {
		return fmt.Errorf("append transcript lines: appender closed")
	}
	a.lines += bytes.Count(lines, []byte{'\n'})
	a.err = a.add(lines)
	return a.err
}

// add packs the complete lines of data.
func (a *JSONLAppender) add(data []byte) error {
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		if end < 0 {
			end = len(data) - pos
		}
		line := data[pos : pos+end+min(1, len(data)-pos-end)]
		pos += len(line)
		if len(line)-1 > agent.MaxChunkSize {
			if a.blobs == nil {
				a.blobs = newBlobStore(a.repo)
			}
			short, err := externalizeLine(line[:len(line)-1], agent.MaxChunkSize, minExternal, a.blobs.store)
			if err != nil {
				return fmt.Errorf("store long transcript lines: %w", err)
			}
			line = append(short[:len(short):len(short)], '\n')
		}
		if err := a.line(line); err != nil {
			return err
		}
	}
	return nil
}

// line packs one line (with its newline). An empty line waits for the
// next: agent.PackJSONL never sees the content's last line when it is
// empty (its newline is the one the content keeps at its end).
func (a *JSONLAppender) line(line []byte) error {
	if a.head != nil || a.total == 0 {
		a.total += len(line)
		if a.total <= agent.StoreChunkSize+1 {
			a.head = append(a.head, line)
			return nil
		}
		head := a.head
		a.head = nil
		for _, l := range head {
			if err := a.greedy(l); err != nil {
				return err
			}
		}
	}
	return a.greedy(line)
}

// greedy is line once the content is known to take several chunks.
func (a *JSONLAppender) greedy(line []byte) error {
	if len(line) == 1 && !a.empty {
		a.empty = true
		return nil
	}
	if a.empty {
		a.empty = false
		if err := a.pack([]byte{'\n'}); err != nil {
			return err
		}
		if len(line) == 1 {
			a.empty = true
			return nil
		}
	}
	return a.pack(line)
}

// pack is agent.PackJSONL's greedy step: a line that does not fit in the
// chunk being packed (agent.StoreChunkSize) closes it.
func (a *JSONLAppender) pack(line []byte) error {
	lineLen := len(line) - 1
	if lineLen > agent.MaxChunkSize {
		return fmt.Errorf("chunk transcript: chunk jsonl: line is %d bytes, chunk limit %d: %w", lineLen, agent.MaxChunkSize, agent.ErrLineTooLarge)
	}
	if a.size > 0 && a.size+lineLen+1 > agent.StoreChunkSize {
		if err := a.emit(a.joined(true)); err != nil {
			return err
		}
		a.cur, a.size = a.cur[:0], 0
	}
	a.cur = append(a.cur, line)
	a.size += len(line)
	return nil
}

// joined returns the chunk being packed, without its last newline when
// trim is set.
func (a *JSONLAppender) joined(trim bool) []byte {
	var c []byte
	if len(a.cur) == 1 {
		c = a.cur[0]
	} else {
		a.buf = a.buf[:0]
		for _, l := range a.cur {
			a.buf = append(a.buf, l...)
		}
		c = a.buf
	}
	if trim {
		c = bytes.TrimSuffix(c, []byte{'\n'})
	}
	return c
}

// emit writes chunk c and adds it to the running hash. Which chunk is the
// last is known only at Close: the hash state before each chunk is saved
// as the prefix state, which the last chunk's leaves behind.
func (a *JSONLAppender) emit(c []byte) error {
	h, err := a.repo.WriteBlob(c)
	if err != nil {
		return fmt.Errorf("store transcript chunk: %w", err)
	}
	a.next.Chunks = append(a.next.Chunks, h.String())
	if a.hashed {
		a.sum.Write([]byte{'\n'})
	}
	if a.next.PrefixSum, err = saveSum(a.sum); err != nil {
		return err
	}
	a.next.LastSize = int64(len(c))
	a.sum.Write(c)
	a.hashed = true
	return nil
}

// Close writes the last chunk and returns the new state. The caller
// records the source position with SetSource.
func (a *JSONLAppender) Close() (*TranscriptState, error) {
	if a.err != nil {
		return nil, a.err
	}
	if a.closed {
		return nil, fmt.Errorf("append transcript lines: appender closed")
	}
	a.closed = true
	next := a.next
	next.Lines += a.lines
	if a.head != nil {
		// At most agent.StoreChunkSize bytes once the final newline is
		// dropped: one chunk (none when empty).
		a.cur, a.head = a.head, nil
		if c := a.joined(true); len(c) > 0 {
			if err := a.emit(c); err != nil {
				return nil, err
			}
			if err := next.finishSum(a.sum); err != nil {
				return nil, err
			}
		}
	} else if a.total > 0 {
		// The last chunk as agent.PackJSONL leaves it: the content ends
		// without the final newline, so the chunk keeps a newline only
		// when an empty last line follows it.
		last := a.joined(!a.empty)
		switch {
		case len(last) > agent.StoreChunkSize && last[len(last)-1] == '\n':
			if err := a.emit(last[:len(last)-1]); err != nil {
				return nil, err
			}
			if err := a.emit(last[len(last):]); err != nil {
				return nil, err
			}
		case len(last) > 0:
			if err := a.emit(last); err != nil {
				return nil, err
			}
		}
		if err := next.finishSum(a.sum); err != nil {
			return nil, err
		}
	}
	blobs := a.prev
	if a.blobs != nil && len(a.blobs.entries) > 0 {
		if err := a.blobs.add(a.prev); err != nil {
			return nil, err
		}
		t, err := a.blobs.tree()
		if err != nil {
			return nil, err
		}
		blobs = t
	}
	next.Blobs = ""
	if !blobs.IsZero() {
		next.Blobs = blobs.String()
	}
	a.cur, a.buf = nil, nil
	return next, nil
}
