package opencode_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/opencode"
)

// FuzzSession scans arbitrary copies of a session whole and in two parts
// (agenttest.CheckSplitScan).
func FuzzSession(f *testing.F) {
	f.Add([]byte(testSession), 2)
	f.Add([]byte(`{"info":{"role":"assistant"},"parts":[{"type":"tool","tool":"edit","state":{"input":[]}},{"type":"step-finish","tokens":{"input":-4}}]}`+"\n"+`{"info":null}`+"\n"), 1)
	f.Add([]byte("{\"info\":{\"role\":\"user\"},\"parts\":\"x\"}\nnull\n"), 2)
	f.Fuzz(func(t *testing.T, data []byte, split int) {
		agenttest.CheckSplitScan(t, opencode.New(), data, split)
	})
}

// FuzzStopPayload parses arbitrary stop payloads: an input or one of the
// two errors, and a copy written only inside the session directory.
func FuzzStopPayload(f *testing.F) {
	f.Add(`{"cwd":"/r","session_id":"ses_abc","info":{"id":"ses_abc"},"messages":[{"info":{"role":"user"},"parts":[]}]}`)
	f.Add(`{"session_id":"ses_../../x","info":{},"messages":null}`)
	f.Add(`{"session_id":"ses_a","info":1,"messages":[1,"x"]}`)
	f.Fuzz(func(t *testing.T, payload string) {
		dir := t.TempDir()
		a := newWithEnv(map[string]string{opencode.EnvTestSessionDir: dir}, t.TempDir())
		in, err := a.ParseHookInput(agent.HookStop, strings.NewReader(payload))
		if err != nil {
			if !errors.Is(err, agent.ErrEmptyInput) && !errors.Is(err, agent.ErrMalformedInput) && !strings.Contains(err.Error(), "transcript") {
				t.Fatalf("error %v", err)
			}
			return
		}
		if in.SessionRef != "" && filepath.Dir(in.SessionRef) != dir {
			t.Fatalf("copy %q outside the session directory %s", in.SessionRef, dir)
		}
	})
}
