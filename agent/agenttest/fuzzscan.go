package agenttest

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/entirecli/entire/agent"
)

// JSONLScanner is an agent whose transcripts are JSONL read line by line.
type JSONLScanner interface {
	agent.TranscriptScanner
	agent.TranscriptReader
}

// CheckSplitScan is the body of a JSONL transcript fuzz target: data,
// scanned whole and from line split on, never fails, ends at its last
// complete line either way with non-negative tokens, and the files found
// from split on are files found from the start; every line reads without
// a panic.
func CheckSplitScan(t *testing.T, a JSONLScanner, data []byte, split int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	whole, err := a.ScanTranscript(path, agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	if complete := int64(bytes.LastIndexByte(data, '\n') + 1); whole.To.Offset != complete {
		t.Fatalf("end %+v, want offset %d", whole.To, complete)
	}
	if u := whole.Tokens; u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheReadTokens < 0 || u.CacheCreationTokens < 0 {
		t.Fatalf("negative tokens %+v", u)
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		_ = a.ReadRecord(line)
	}
	if split < 0 || split > whole.To.Entries {
		return
	}
	part, err := a.ScanTranscript(path, agent.Position{Entries: split})
	if err != nil {
		t.Fatal(err)
	}
	if part.To != whole.To {
		t.Fatalf("end from line %d %+v, from the start %+v", split, part.To, whole.To)
	}
	for _, f := range part.ModifiedFiles {
		if !slices.Contains(whole.ModifiedFiles, f) {
			t.Fatalf("file %q from line %d, not from the start %q", f, split, whole.ModifiedFiles)
		}
	}
}
