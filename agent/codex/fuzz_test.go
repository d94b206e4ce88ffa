package codex_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/codex"
)

// FuzzRollout scans arbitrary rollout bytes whole and in two parts: never
// a failure, the end at the last complete line, the same files either way,
// and every file a patch names.
func FuzzRollout(f *testing.F) {
	f.Add([]byte(testSession), 4)
	f.Add([]byte(`{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Add File: a\n*** Move to: "}}`+"\n"+`{"type":"token_usage_record","payload":{"usage":{"input_tokens":-5,"cached_input_tokens":9}}}`+"\n"), 1)
	f.Add([]byte("{\"type\":\"response_item\",\"payload\":[1]}\n{\"payload\":\"x\"}\nnull\n"), 2)
	f.Fuzz(func(t *testing.T, data []byte, split int) {
		path := filepath.Join(t.TempDir(), "r.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		a := codex.New()
		whole, err := a.ScanTranscript(path, agent.Position{})
		if err != nil {
			t.Fatal(err)
		}
		if complete := int64(bytes.LastIndexByte(data, '\n') + 1); whole.To.Offset != complete {
			t.Fatalf("end %+v, want offset %d", whole.To, complete)
		}
		if whole.Tokens.InputTokens < 0 {
			t.Fatalf("negative input tokens %+v", whole.Tokens)
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
		for _, line := range bytes.Split(data, []byte("\n")) {
			_ = a.ReadRecord(line)
		}
	})
}

// FuzzPatchFiles: every file found is named on a marker line of the patch.
func FuzzPatchFiles(f *testing.F) {
	f.Add("*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b\n*** Move to: c\n*** End Patch\n")
	f.Add("*** Delete File:  \r\n*** Add File: \n")
	f.Fuzz(func(t *testing.T, patch string) {
		for _, p := range codex.PatchFiles(patch) {
			if p == "" || p != strings.TrimSpace(p) || !strings.Contains(patch, p) {
				t.Fatalf("file %q of patch %q", p, patch)
			}
		}
	})
}
