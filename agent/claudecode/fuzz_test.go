package claudecode_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/claudecode"
)

func FuzzScanTranscript(f *testing.F) {
	f.Add(joinLines(sessionLines), 3)
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Write","input":{"file_path":1}}]}}{"type":"user"`+"\n"), 0)
	f.Add([]byte("{\n}\n[]\nnull\n\"s\"\n"), 1)
	f.Add([]byte(`{"type":"user","toolUseResult":[1,2],"message":{"content":{"x":1}}}`+"\n"+`{"type":"progress","data":"x"}`+"\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, split int) {
		path := filepath.Join(t.TempDir(), "t.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		a := claudecode.New()
		whole, err := a.ScanTranscript(path, agent.Position{})
		if err != nil {
			t.Fatal(err)
		}
		complete := int64(bytes.LastIndexByte(data, '\n') + 1)
		if whole.To.Offset != complete || whole.To.Entries != bytes.Count(data, []byte("\n")) {
			t.Fatalf("end %+v, want offset %d", whole.To, complete)
		}
		// A rewind's cursor is where a scan from the start ends.
		if end := a.EndPosition(data); end != whole.To {
			t.Fatalf("EndPosition %+v, scan ends at %+v", end, whole.To)
		}
		// Resuming from any line boundary reaches the same end.
		if split < 0 {
			split = -split
		}
		if n := whole.To.Entries; n > 0 {
			mid, err := a.ScanTranscript(path, agent.Position{Entries: split % (n + 1)})
			if err != nil || mid.To.Offset != whole.To.Offset || mid.To.Entries != whole.To.Entries {
				t.Fatalf("resume from line %d: %+v, %v", split%(n+1), mid, err)
			}
		}
		_ = claudecode.AnalyzeTranscript(data, agent.Position{Entries: split})
	})
}

func FuzzParseHookInput(f *testing.F) {
	for _, hc := range claudeHookCases() {
		f.Add([]byte(hc.Payload))
	}
	f.Add([]byte(""))
	f.Add([]byte(`{"tool_input":null,"tool_response":[1,{"a":"b"}],"session_id":null}`))
	f.Add([]byte(`{"session_id":["x"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := claudecode.New().ParseHookInput(agent.HookPostToolUse, bytes.NewReader(data))
		if err == nil && (in == nil || in.RawData == nil) {
			t.Fatalf("nil input without error")
		}
	})
}

// The turn-end watch reads a transcript in whatever pieces it was written
// in: a watch not done after the first piece must decide, once the rest is
// appended, as one read of the whole does; no input panics.
func FuzzWatchTurnEnd(f *testing.F) {
	f.Add([]byte(`{"type":"user","message":{"content":"go"}}`+"\n"+`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"Done."}]}}`+"\n"), 40, "Done.", true)
	f.Add([]byte(`{"type":"progress","data":{"type":"hook_progress","hookEvent":"Stop"}}`+"\n{\n"), 3, "", false)
	f.Add([]byte("\n\n{\"type\":\"assistant\",\"message\":{\"content\":\"x\"}}"), 0, "x", true)
	f.Fuzz(func(t *testing.T, data []byte, split int, answer string, byAnswer bool) {
		dir := t.TempDir()
		end := agent.TurnEnd{FinalAnswer: answer, HasFinalAnswer: byAnswer}
		whole := filepath.Join(dir, "whole.jsonl")
		if err := os.WriteFile(whole, data, 0o600); err != nil {
			t.Fatal(err)
		}
		want, err := claudecode.New().WatchTurnEnd(whole, agent.Position{}, end)()
		if err != nil {
			t.Fatal(err)
		}
		if split < 0 {
			split = -split
		}
		split %= len(data) + 1
		parts := filepath.Join(dir, "parts.jsonl")
		if err := os.WriteFile(parts, data[:split], 0o600); err != nil {
			t.Fatal(err)
		}
		check := claudecode.New().WatchTurnEnd(parts, agent.Position{}, end)
		if done, err := check(); err != nil || done {
			// Done ends the wait: what comes later is not looked at.
			return
		}
		fh, err := os.OpenFile(parts, os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		fh.Write(data[split:])
		fh.Close()
		got, err := check()
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("read in two pieces (split %d): done %v, whole: %v", split, got, want)
		}
	})
}
