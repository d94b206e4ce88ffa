package copilotcli_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/copilotcli"
)

// FuzzHookPayload parses arbitrary payloads: an input or one of the two
// errors, and a transcript path derived from the session id only inside
// the session-state directory.
func FuzzHookPayload(f *testing.F) {
	f.Add(`{"sessionId":"p1","timestamp":1796423617708,"cwd":"/repo","prompt":"x"}`)
	f.Add(`{"sessionId":"../../etc","toolArgs":null,"toolResult":{"a":1}}`)
	f.Add(`{"sessionId":"..","timestamp":"now"}`)
	f.Fuzz(func(t *testing.T, payload string) {
		a := newWithEnv(map[string]string{copilotcli.EnvHome: "/cp"}, "/home/u")
		in, err := a.ParseHookInput(agent.HookUserPromptSubmit, strings.NewReader(payload))
		if err != nil {
			if !errors.Is(err, agent.ErrEmptyInput) && !errors.Is(err, agent.ErrMalformedInput) {
				t.Fatalf("error %v", err)
			}
			return
		}
		if in.SessionRef != "" && !strings.Contains(payload, "transcriptPath") {
			rel, err := filepath.Rel("/cp/session-state", in.SessionRef)
			if err != nil || strings.HasPrefix(rel, "..") || filepath.Base(in.SessionRef) != "events.jsonl" {
				t.Fatalf("derived transcript %q outside the session state", in.SessionRef)
			}
		}
	})
}

// FuzzEvents reads arbitrary events lines without failing.
func FuzzEvents(f *testing.F) {
	f.Add([]byte(testSession))
	f.Add([]byte(`{"type":"assistant.message","data":{"toolRequests":[{"name":"create","arguments":"x"}]}}` + "\n" + `{"type":"session.usage_record","data":{"usage":{"inputTokens":1,"cacheReadTokens":9}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a := copilotcli.New()
		for _, line := range bytes.Split(data, []byte("\n")) {
			rec := a.ReadRecord(line)
			for _, e := range rec.Entries {
				if e.Role == agent.RoleTool && e.Tool == "" {
					t.Fatalf("tool entry without a name: %+v", e)
				}
			}
		}
	})
}
