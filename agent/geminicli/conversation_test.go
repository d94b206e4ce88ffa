package geminicli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
)

// Every real Gemini CLI transcript (one JSON object, or JSONL) reads as a
// conversation with prompts and answers.
func TestReadConversationOfRealTranscripts(t *testing.T) {
	t.Parallel()
	a := &Agent{}
	files := agenttest.TranscriptFixtures(t, "gemini-cli")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var prompts, answers, calls int
		err = a.ReadConversation(bytes.NewReader(data), 2048, func(m agent.Message) bool {
			if m.Prompt {
				prompts++
			}
			if m.Role == "assistant" {
				answers++
			}
			calls += len(m.Calls)
			return true
		})
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(path), err)
		}
		if bytes.Contains(data, []byte(`"type": "user"`)) && (prompts == 0 || answers == 0) {
			t.Errorf("%s: %d prompts, %d answers", filepath.Base(path), prompts, answers)
		}
		t.Logf("%s: %d prompts, %d answers, %d calls", filepath.Base(path), prompts, answers, calls)
	}
}
