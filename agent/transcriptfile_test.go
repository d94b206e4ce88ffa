package agent

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// zeros is an endless reader of zero bytes (a file with no line end).
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// Memory stays bounded on a transcript without line ends: ForEachLine
// gives up past MaxLine, ReadTranscriptFile past MaxWholeTranscript.
func TestTranscriptReadsAreBounded(t *testing.T) {
	t.Parallel()
	_, _, err := ForEachLine(io.LimitReader(zeros{}, MaxLine+1<<20), func([]byte) error { return nil })
	if !errors.Is(err, ErrNotTranscript) {
		t.Fatalf("ForEachLine over a line longer than MaxLine: %v", err)
	}
	huge := filepath.Join(t.TempDir(), "huge.jsonl")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(4 << 30); err != nil { // sparse: 4 GiB of zeros
		t.Skip("no sparse files here:", err)
	}
	f.Close()
	if _, err := ReadTranscriptFile(huge); !errors.Is(err, ErrNotTranscript) {
		t.Fatalf("ReadTranscriptFile of 4 GiB: %v", err)
	}
	if _, err := OpenTranscript(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("OpenTranscript of a missing file: %v", err)
	}
}
