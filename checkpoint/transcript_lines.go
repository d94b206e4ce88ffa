package checkpoint

import (
	"bytes"
	"fmt"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/gitrepo"
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
	for i, h := range s.Chunks {
		b, err := repo.ReadBlob(h)
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
