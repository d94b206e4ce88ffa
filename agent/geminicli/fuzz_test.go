package geminicli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/geminicli"
)

func FuzzAnalyzeTranscript(f *testing.F) {
	f.Add(doc(testMessages), 2)
	f.Add([]byte("{\"sessionId\":\"s\",\"projectHash\":\"h\"}\n{\"id\":\"1\",\"type\":\"gemini\",\"toolCalls\":[{\"name\":\"write_file\",\"args\":{\"file_path\":7}}]}\n{\"$set\":{}}\n"), 1)
	f.Add([]byte(`{"messages":[1,"x",null,{"type":"user","content":{"a":1}}]}`), 0)
	f.Add([]byte("{\n"), 0)
	f.Fuzz(func(t *testing.T, data []byte, from int) {
		a := geminicli.New()
		path := filepath.Join(t.TempDir(), "s.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		an, err := a.ScanTranscript(path, agent.Position{Entries: from})
		if err == nil && an == nil {
			t.Fatal("nil analysis without error")
		}
		// A rewind's cursor is where a scan from the start ends.
		if whole, err := a.ScanTranscript(path, agent.Position{}); err == nil {
			if end := a.EndPosition(data); end != whole.To {
				t.Fatalf("EndPosition %+v, scan ends at %+v", end, whole.To)
			}
		}
		_, _ = geminicli.AnalyzeTranscript(data)
		chunks, err := a.ChunkTranscript(data, 64)
		if err != nil {
			return
		}
		back, err := a.ReassembleTranscript(chunks)
		if err != nil {
			t.Fatalf("reassemble: %v", err)
		}
		if !bytes.Equal(back, data) {
			var x, y interface{}
			if json.Unmarshal(back, &x) != nil || json.Unmarshal(data, &y) != nil {
				t.Fatalf("round trip changed non-JSON content")
			}
		}
	})
}

func FuzzParseHookInput(f *testing.F) {
	for _, hc := range geminiHookCases() {
		f.Add([]byte(hc.Payload))
	}
	f.Add([]byte(`{"timestamp":"not a time","tool_input":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := geminicli.New().ParseHookInput(agent.HookPreToolUse, bytes.NewReader(data))
		if err == nil && in == nil {
			t.Fatal("nil input without error")
		}
	})
}
