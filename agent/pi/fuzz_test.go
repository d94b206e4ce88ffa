package pi_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/pi"
)

// FuzzSession scans arbitrary session bytes whole and in two parts: never
// a failure, the end at the last complete line, the same files either
// way.
func FuzzSession(f *testing.F) {
	f.Add([]byte(testSession), 4)
	f.Add([]byte(`{"type":"message","message":{"role":"assistant","content":[{"type":"tool_use","name":"edit","input":[]}]}}`+"\n"+`{"type":"message","message":null}`+"\n"), 1)
	f.Add([]byte("{\"type\":\"message\",\"message\":{\"content\":\"x\"}}\nnull\n"), 2)
	f.Fuzz(func(t *testing.T, data []byte, split int) {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		a := pi.New()
		whole, err := a.ScanTranscript(path, agent.Position{})
		if err != nil {
			t.Fatal(err)
		}
		if complete := int64(bytes.LastIndexByte(data, '\n') + 1); whole.To.Offset != complete {
			t.Fatalf("end %+v, want offset %d", whole.To, complete)
		}
		if split < 0 || split > whole.To.Entries {
			return
		}
		first, err := a.ScanTranscript(path, agent.Position{Entries: split})
		if err != nil {
			t.Fatal(err)
		}
		if first.To != whole.To {
			t.Fatalf("end from line %d %+v, from the start %+v", split, first.To, whole.To)
		}
		for _, f := range first.ModifiedFiles {
			if !contains(whole.ModifiedFiles, f) {
				t.Fatalf("file %q from line %d, not from the start %q", f, split, whole.ModifiedFiles)
			}
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			_ = a.ReadRecord(line)
		}
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
