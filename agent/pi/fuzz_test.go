package pi_test

import (
	"testing"

	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/pi"
)

// FuzzSession scans arbitrary session bytes whole and in two parts
// (agenttest.CheckSplitScan).
func FuzzSession(f *testing.F) {
	f.Add([]byte(testSession), 4)
	f.Add([]byte(`{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"toolCall","name":"edit","arguments":[]}],"usage":{"input":-3}}}`+"\n"+`{"type":"message","message":null}`+"\n"), 1)
	f.Add([]byte("{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}\nnull\n"), 2)
	f.Fuzz(func(t *testing.T, data []byte, split int) {
		agenttest.CheckSplitScan(t, pi.New(), data, split)
	})
}
