package agent

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zeros is an endless reader of zero bytes (a file with no line end).
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// Memory stays bounded on a transcript without line ends: ForEachLine
// reads past a line longer than MaxLine without holding it, and goes on
// after it; ReadTranscriptFile gives up past MaxWholeTranscript.
func TestTranscriptReadsAreBounded(t *testing.T) {
	t.Parallel()
	long := io.MultiReader(io.LimitReader(zeros{}, MaxLine+1<<20), strings.NewReader("\n{}\n"))
	var got []string
	consumed, lines, err := ForEachLine(long, func(l []byte) error { got = append(got, string(l)); return nil })
	if err != nil || lines != 2 || consumed != MaxLine+1<<20+4 || len(got) != 1 || got[0] != "{}" {
		t.Fatalf("ForEachLine over a line longer than MaxLine: %d lines, %d bytes, passed %q, %v", lines, consumed, got, err)
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
