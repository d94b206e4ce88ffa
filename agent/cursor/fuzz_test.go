package cursor_test

import (
	"testing"

	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/cursor"
)

// FuzzSession scans arbitrary transcript bytes whole and in two parts
// (agenttest.CheckSplitScan).
func FuzzSession(f *testing.F) {
	f.Add([]byte(testSession), 4)
	f.Add([]byte(`{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Write","input":[]}]}}`+"\n"+`{"role":"user","message":null}`+"\n"), 1)
	f.Add([]byte("{\"role\":\"user\",\"message\":{\"content\":\"x\"}}\nnull\n"), 2)
	f.Fuzz(func(t *testing.T, data []byte, split int) {
		agenttest.CheckSplitScan(t, cursor.New(), data, split)
	})
}
