package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"fmt"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
)

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
		if err := next.hashChunk(sum, nd, i == len(s.Chunks)-1); err != nil {
			return nil, err
		}
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
	if err := next.finishSum(sum); err != nil {
		return nil, err
	}
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
