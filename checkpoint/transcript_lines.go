package checkpoint

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
)

// ForEachLine calls fn with each line (without its newline) of the stored
// JSONL transcript s, in order, as ReadTranscript would give them, but
// reading one chunk at a time: the values moved out of a long line are
// put back in that line only, and the whole transcript is never in
// memory. It returns false, calling fn for nothing, when the transcript is
// not JSONL (a JSON document, read whole with ReadTranscript). An error of
// fn stops the walk and is returned.
func ForEachLine(repo *gitrepo.Repo, s Stored, fn func(line []byte) error) (bool, error) {
	if len(s.Chunks) == 0 {
		return true, nil
	}
	var blobs *blobSet
	// Values moved out of long lines are read through go-git while
	// the walk goes on: the chunks are then read one after the other.
	stop := make(chan struct{})
	chunks := readAhead(repo, s.Chunks, s.Blobs.IsZero(), stop)
	defer func() {
		// No chunk is read past those under way where the walk stopped
		// (a JSON document, an error of fn).
		close(stop)
		for range chunks { // let the readers finish
		}
	}()
	for i := range s.Chunks {
		r := <-chunks
		b, err := r.data, r.err
		if err != nil {
			return true, fmt.Errorf("read transcript chunk: %w", err)
		}
		if i == 0 {
			if agent.FormatOf(agent.Recognize(b), b) != agent.TranscriptJSONL {
				return false, nil
			}
			if blobs, err = loadBlobSet(repo, s.Blobs); err != nil {
				return true, err
			}
		}
		if i == len(s.Chunks)-1 {
			// Chunks are joined by "\n"; the last one's own final
			// newline ends the transcript, it starts no line.
			b = bytes.TrimSuffix(b, []byte{'\n'})
			if len(b) == 0 {
				break
			}
		}
		for {
			line, rest, found := bytes.Cut(b, []byte{'\n'})
			if blobs != nil && bytes.Contains(line, markerStart) {
				if line, err = expandMarkers(line, blobs); err != nil {
					return true, fmt.Errorf("expand transcript: %w", err)
				}
			}
			if err := fn(line); err != nil {
				return true, err
			}
			if !found {
				break
			}
			b = rest
		}
	}
	return true, nil
}

// readAheadChunks is how many chunks ForEachLine reads ahead, two at a
// time: decompressing them is most of its cost.
const readAheadChunks = 4

type chunkRead struct {
	data []byte
	err  error
}

// readAhead sends the blobs hs in order on the returned channel, which is
// closed after the last. With parallel, loose blobs are read on two
// goroutines, at most readAheadChunks ahead of the consumer; packed ones
// (read through go-git, which is not safe for concurrent use) are read by
// one goroutine, as the caller then does not use go-git meanwhile. Without
// parallel, the blobs are read one ahead of the consumer. Once stop is
// closed no further blob is read, and the channel is closed once those
// under way are sent.
func readAhead(repo *gitrepo.Repo, hs []plumbing.Hash, parallel bool, stop <-chan struct{}) <-chan chunkRead {
	out := make(chan chunkRead)
	if !parallel {
		go func() {
			defer close(out)
			for _, h := range hs {
				select {
				case <-stop:
					return
				default:
				}
				b, err := repo.ReadBlob(h)
				out <- chunkRead{b, err}
			}
		}()
		return out
	}
	pending := make(chan chan chunkRead, readAheadChunks)
	sem := make(chan struct{}, 2)
	var packed sync.Mutex
	go func() {
		defer close(pending)
		for _, h := range hs {
			select {
			case <-stop:
				return
			default:
			}
			c := make(chan chunkRead, 1)
			pending <- c
			sem <- struct{}{}
			go func(h plumbing.Hash) {
				defer func() { <-sem }()
				if b, ok := repo.ReadLooseBlob(h); ok {
					c <- chunkRead{b, nil}
					return
				}
				packed.Lock()
				defer packed.Unlock()
				b, err := repo.ReadBlob(h)
				c <- chunkRead{b, err}
			}(h)
		}
	}()
	go func() {
		defer close(out)
		for c := range pending {
			out <- <-c
		}
	}()
	return out
}
