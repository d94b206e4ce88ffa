package claudecode

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
)

// Every real Claude Code transcript reads as a conversation: prompts,
// answers, tool calls whose results find them, usage on assistant lines.
func TestReadConversationOfRealTranscripts(t *testing.T) {
	t.Parallel()
	a := &Agent{}
	files := agenttest.TranscriptFixtures(t, "claude-code")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var prompts, calls, results, usage int
		ids := map[string]bool{}
		err = a.ReadConversation(bytes.NewReader(data), 1024, func(m agent.Message) bool {
			if m.Prompt {
				prompts++
			}
			for _, c := range m.Calls {
				calls++
				ids[c.ID] = true
			}
			for _, r := range m.Results {
				results++
				if len(r.Text) > 16*(1024+64) {
					t.Errorf("%s: a result of %d bytes past the limit", filepath.Base(path), len(r.Text))
				}
			}
			if m.Usage != nil {
				usage++
			}
			return true
		})
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(path), err)
		}
		if prompts == 0 && !strings.Contains(filepath.Base(path), "agent-") {
			t.Errorf("%s: no prompt", filepath.Base(path))
		}
		t.Logf("%s: %d prompts, %d calls, %d results, %d with usage", filepath.Base(path), prompts, calls, results, usage)
	}
}

// A reader that stops early stops reading.
func TestReadConversationStops(t *testing.T) {
	t.Parallel()
	in := `{"type":"user","message":{"role":"user","content":"one"}}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"two"}]}}
{"type":"user","message":{"role":"user","content":"three"}}
`
	var got []string
	err := (&Agent{}).ReadConversation(strings.NewReader(in), 100, func(m agent.Message) bool {
		got = append(got, m.Text)
		return len(got) < 2
	})
	if err != nil || strings.Join(got, ",") != "one,two" {
		t.Errorf("got %v, %v", got, err)
	}
}

func FuzzReadConversation(f *testing.F) {
	f.Add([]byte(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":3}}}` + "\n" +
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}]}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = (&Agent{}).ReadConversation(bytes.NewReader(data), 64, func(agent.Message) bool { return true })
	})
}
