package antigravity_test

import (
	"testing"

	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/antigravity"
)

// FuzzSession scans arbitrary transcript bytes whole and in two parts
// (agenttest.CheckSplitScan).
func FuzzSession(f *testing.F) {
	f.Add([]byte(testSession), 4)
	f.Add([]byte(`{"type":"PLANNER_RESPONSE","tool_calls":[{"name":"write_to_file","args":{"TargetFile":"\"\\\"x\""}}]}`+"\n"+`{"type":"USER_INPUT","content":null}`+"\n"), 1)
	f.Add([]byte("{\"tool_calls\":\"x\"}\nnull\n"), 2)
	f.Fuzz(func(t *testing.T, data []byte, split int) {
		agenttest.CheckSplitScan(t, antigravity.New(), data, split)
	})
}
