package checkpoint

import (
	"bytes"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A stored transcript reads back as the agent that wrote it tells its
// format: Gemini CLI's JSONL gets its final newline back like any JSONL
// (it came back without it, as if it were a JSON document), and a JSON
// document reads back as stored, without one added.
func TestReadTranscriptFormatByContent(t *testing.T) {
	t.Parallel()
	repo := openRepo(t, gittest.InitWithCommit(t))
	jsonl := []byte(`{"sessionId":"abcdef12","projectHash":"ff","startTime":"2026-01-01T00:00:00Z"}` + "\n" +
		`{"id":"m1","type":"user","content":"hi"}` + "\n")
	ts, err := AppendJSONL(repo, nil, jsonl)
	if err != nil {
		t.Fatal(err)
	}
	for _, label := range []agent.AgentType{"", agent.AgentTypeGemini} {
		got, err := ReadTranscript(repo, ts.Stored(), label)
		if err != nil || !bytes.Equal(got, jsonl) {
			t.Errorf("Gemini JSONL (label %q) read back as %q, %v", label, got, err)
		}
	}
	doc := []byte("{\n  \"sessionId\": \"abcdef12\",\n  \"messages\": [\n    {\"id\": \"m1\", \"type\": \"user\", \"content\": \"hi\"}\n  ]\n}")
	ws, err := WriteWhole(repo, doc, agent.AgentTypeGemini)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ReadTranscript(repo, ws.Stored(), ""); err != nil || !bytes.Equal(got, doc) {
		t.Errorf("document read back as %q, %v", got, err)
	}
}
