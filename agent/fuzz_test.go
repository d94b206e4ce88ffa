package agent_test

import (
	"bytes"
	"testing"

	"github.com/entirecli/entire/agent"
)

func FuzzChunkJSONL(f *testing.F) {
	f.Add([]byte("a\nbb\nccc\n"), 4)
	f.Add([]byte("\n\n\n"), 1)
	f.Add([]byte("no newline"), 3)
	f.Fuzz(func(t *testing.T, data []byte, size int) {
		size = size%64 + 1
		if size < 1 {
			size = -size + 1
		}
		chunks, err := agent.ChunkJSONL(data, size)
		if err != nil {
			return
		}
		for _, c := range chunks {
			if len(c) > size {
				t.Fatalf("chunk of %d bytes > %d", len(c), size)
			}
		}
		if back := agent.ReassembleJSONL(chunks); !bytes.Equal(back, data) {
			t.Fatalf("round trip: %q -> %q", data, back)
		}
	})
}

func FuzzPackJSONL(f *testing.F) {
	f.Add([]byte("a\nbbbbbbb\nccc\n"), 4, 8)
	f.Add([]byte("aaaaaaaa\n"), 3, 8)
	f.Fuzz(func(t *testing.T, data []byte, target, limit int) {
		target = target%32 + 33
		limit = target + limit%64
		chunks, err := agent.PackJSONL(data, target, limit)
		if err != nil {
			return
		}
		for _, c := range chunks {
			if len(c) > max(target, limit) || len(c) > target && bytes.Contains(c, []byte("\n")) {
				t.Fatalf("chunk of %d bytes (target %d, limit %d): %q", len(c), target, limit, c)
			}
		}
		if back := agent.ReassembleJSONL(chunks); !bytes.Equal(back, data) {
			t.Fatalf("round trip: %q -> %q", data, back)
		}
	})
}

func FuzzParseObject(f *testing.F) {
	f.Add([]byte(`{"a": 1, "b": [true, null, "\u00e9<"], "c": {}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"a":1}{"b":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := agent.ParseObject(data)
		if err != nil {
			return
		}
		again, err := agent.ParseObject(o.Indent("\t"))
		if err != nil {
			t.Fatalf("re-parse of indented output: %v", err)
		}
		if !bytes.Equal(again.Compact(), o.Compact()) {
			t.Fatalf("indent round trip changed the object")
		}
	})
}

func FuzzSessionQueries(f *testing.F) {
	f.Add([]byte(`{"type":"user","uuid":"u","message":{"content":"hi"}}`+"\n"), "u")
	f.Add([]byte("{\n\"messages\":[{\"id\":\"m\",\"type\":\"gemini\",\"toolCalls\":[{\"id\":\"t\"}]}]}"), "m")
	f.Fuzz(func(t *testing.T, data []byte, id string) {
		s := &agent.AgentSession{NativeData: data}
		_ = s.GetLastUserPrompt()
		_ = s.GetLastAssistantResponse()
		_, _ = s.FindToolResultUUID(id)
		tr := s.TruncateAtUUID(id)
		if recognizedType(data) == "" && !bytes.HasPrefix(data, tr.NativeData) {
			t.Fatalf("JSONL truncation is not a prefix")
		}
	})
}
