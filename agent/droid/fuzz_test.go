package droid_test

import (
	"testing"

	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/droid"
)

// FuzzSession scans arbitrary session bytes whole and in two parts
// (agenttest.CheckSplitScan).
func FuzzSession(f *testing.F) {
	f.Add([]byte(testSession), 4)
	f.Add([]byte(`{"type":"message","message":{"role":"assistant","content":[{"type":"tool_use","name":"Edit","input":[]}]}}`+"\n"+`{"type":"message","message":null}`+"\n"), 1)
	f.Add([]byte("{\"type\":\"message\",\"message\":{\"content\":\"x\"}}\nnull\n"), 2)
	f.Fuzz(func(t *testing.T, data []byte, split int) {
		agenttest.CheckSplitScan(t, droid.New(), data, split)
	})
}
